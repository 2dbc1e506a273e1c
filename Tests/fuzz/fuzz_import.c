/* Payload import on either parser: the first byte picks the mapping (byte % 3) and whether the import
 * runs in a transaction that is rolled back (most inputs) or commits on its own. Both contexts hold
 * the same small graph. Every call must return a status; a failed import must leave the graph as it
 * was (counts and every value), a rollback must bring it back; and both parsers must give the same
 * outcome. */
#include "fuzz_common.h"

static fuzz_graph graphs[2] = {
    {.spec = NULL, .entities = fuzz_spec_entities, .seed_mapping = "person", .parser = MAPPING_PARSER_JANSSON},
    {.spec = NULL, .entities = fuzz_spec_entities, .seed_mapping = "person", .parser = MAPPING_PARSER_SIMDJSON},
};
static int parsers = 1;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    if (mapping_parser_is_available(MAPPING_PARSER_SIMDJSON)) parsers = 2;
    for (int i = 0; i < parsers; i++) fuzz_people_graph_open(&graphs[i]);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const char *mappings[] = {"person", "company", "tag"};
    const char *mapping = mappings[data[0] % 3];
    int transaction = fuzz_in_transaction(data[0] / 3);
    int rc[2];
    size_t count[2];
    for (int i = 0; i < parsers; i++) {
        fuzz_graph *graph = &graphs[i];
        if (transaction) FUZZ_ASSERT(mapping_context_begin(graph->ctx) == MAPPING_OK);
        mapping_list *list = NULL;
        rc[i] = mapping_context_import(graph->ctx, mapping, (const char *)data + 1, size - 1, &list);
        fuzz_status(graph->ctx, rc[i]);
        if (rc[i] != MAPPING_OK) FUZZ_ASSERT(list == NULL);
        count[i] = mapping_list_count(list);
        mapping_list_free(list);
        /* A plain import parses the whole text before it changes anything. */
        int values = rc[i] != MAPPING_EPARSE;
        if (transaction) fuzz_graph_end(graph, rc[i], values);
        else fuzz_graph_after_commit(graph, rc[i], values);
    }
    /* Same text, same outcome: both succeed with as many objects, or both fail with one code. */
    if (parsers == 2) {
        if (rc[0] != rc[1]) fprintf(stderr, "jansson %s, simdjson %s\n", mapping_error_name(rc[0]), mapping_error_name(rc[1]));
        FUZZ_ASSERT(rc[0] == rc[1]);
        if (rc[0] == MAPPING_OK) FUZZ_ASSERT(count[0] == count[1]);
    }
    return 0;
}
