/* Payload import on either parser: the first byte picks the parser and the mapping. Every call must
 * return a status; a failed import must leave the object counts as they were, and a successful one
 * must give the same result whichever parser read the text. */
#include "fuzz_common.h"

static size_t total(mapping_context *ctx) {
    size_t sum = 0, count = 0;
    const char *entities[] = {"Person", "Company", "Tag"};
    for (int i = 0; i < 3; i++) {
        FUZZ_ASSERT(mapping_entity_count(ctx, entities[i], &count) == MAPPING_OK);
        sum += count;
    }
    return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static mapping_context *ctx[2];
    static unsigned runs;
    if (size < 1) return 0;
    if (runs++ % 512 == 0) {  /* a fresh graph now and then, so it does not only grow */
        for (int i = 0; i < 2; i++) {
            mapping_context_free(ctx[i]);
            ctx[i] = fuzz_context();
        }
        FUZZ_ASSERT(mapping_context_set_parser(ctx[0], MAPPING_PARSER_JANSSON) == MAPPING_OK);
        if (mapping_parser_is_available(MAPPING_PARSER_SIMDJSON))
            FUZZ_ASSERT(mapping_context_set_parser(ctx[1], MAPPING_PARSER_SIMDJSON) == MAPPING_OK);
    }
    const char *mappings[] = {"person", "company", "tag"};
    const char *mapping = mappings[data[0] % 3];
    int rc[2];
    size_t before[2], count[2];
    for (int i = 0; i < 2; i++) {
        before[i] = total(ctx[i]);
        mapping_list *list = NULL;
        rc[i] = mapping_context_import(ctx[i], mapping, (const char *)data + 1, size - 1, &list);
        count[i] = mapping_list_count(list);
        mapping_list_free(list);
        if (rc[i] != MAPPING_OK) FUZZ_ASSERT(total(ctx[i]) == before[i]);  /* all or nothing */
        FUZZ_ASSERT(rc[i] <= 0 && rc[i] >= -18);
    }
    /* Same text, same outcome: both succeed with as many objects, or both fail with one code. */
    FUZZ_ASSERT(rc[0] == rc[1]);
    if (rc[0] == MAPPING_OK) FUZZ_ASSERT(count[0] == count[1]);
    return 0;
}
