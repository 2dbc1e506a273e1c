/* Predicates with arguments and sorts: input is predicate NUL arguments NUL sort, run as a fetch and
 * a count against a small graph made once. A fetch must answer (or fail with a status) and agree with
 * the count; neither changes the graph. */
#include "fuzz_common.h"

static fuzz_graph graph = {.entities = fuzz_spec_entities, .seed_mapping = "person", .parser = MAPPING_PARSER_JANSSON};

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_people_graph_open(&graph);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mapping_context *ctx = graph.ctx;
    char *predicate = fuzz_part(&data, &size);
    char *arguments = fuzz_part(&data, &size);
    char *sort = fuzz_part(&data, &size);
    mapping_list *list = NULL;
    int rc = mapping_entity_fetch(ctx, "Person", predicate, arguments[0] ? arguments : NULL, sort[0] ? sort : NULL, 0, 0, 0, &list);
    fuzz_status(ctx, rc);
    size_t count = 0;
    int counted = mapping_entity_count_where(ctx, "Person", predicate, arguments[0] ? arguments : NULL, &count);
    fuzz_status(ctx, counted);
    if (rc == MAPPING_OK && counted == MAPPING_OK) FUZZ_ASSERT(count == mapping_list_count(list));
    mapping_list_free(list);
    free(predicate);
    free(arguments);
    free(sort);
    return 0;
}
