/* The chunk splitter, differentially: a chunked import (chunk size from the first byte) must accept
 * and reject exactly what a plain import of the same array does, with the same code and position.
 * Both contexts hold the same two tags; the import runs in a transaction rolled back after it (or,
 * for one input in eight, commits on its own), so both graphs are their baseline for every input. */
#include "fuzz_common.h"

static const char *tag_spec =
    "{\"entities\": {\"Tag\": {\"attributes\": {\"label\": \"string\", \"n\": \"integer\"}, \"identification\": \"label\"}},"
    " \"mappings\": {\"tag\": {\"entity\": \"Tag\", \"attributes\": {\"label\": \"label\", \"n\": \"n\"}}}}";

static const fuzz_entity tag_entities[] = {{"Tag", "tag"}, {NULL, NULL}};

static fuzz_graph plain = {.entities = tag_entities, .seed_mapping = "tag", .parser = MAPPING_PARSER_JANSSON};
static fuzz_graph chunked = {.entities = tag_entities, .seed_mapping = "tag", .parser = MAPPING_PARSER_JANSSON};

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    const char *seed = "[{\"label\": \"a\", \"n\": 1}, {\"label\": \"b\"}]";
    plain.spec = chunked.spec = tag_spec;
    plain.seed = chunked.seed = seed;
    fuzz_graph_open(&plain);
    fuzz_graph_open(&chunked);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    size_t chunk = (size_t)(data[0] % 4) + 1;
    int transaction = fuzz_in_transaction(data[0] >> 2);
    const char *text = (const char *)data + 1;
    size_t length = size - 1;
    if (transaction) {
        FUZZ_ASSERT(mapping_context_begin(plain.ctx) == MAPPING_OK);
        FUZZ_ASSERT(mapping_context_begin(chunked.ctx) == MAPPING_OK);
    }
    mapping_list *list = NULL;
    int rc_plain = mapping_context_import(plain.ctx, "tag", text, length, &list);
    fuzz_status(plain.ctx, rc_plain);
    size_t whole = mapping_list_count(list);
    mapping_list_free(list);
    size_t count = 0;
    int rc_chunked = mapping_context_import_chunked(chunked.ctx, "tag", text, length, MAPPING_CHUNKS_ARRAY, chunk, NULL, &count);
    fuzz_status(chunked.ctx, rc_chunked);
    const mapping_error *a = mapping_error_last(plain.ctx), *b = mapping_error_last(chunked.ctx);
    /* A plain import also takes a single object, and the chunked one only arrays: compare arrays. */
    size_t start = 0;
    while (start < length && (text[start] == ' ' || text[start] == '\n' || text[start] == '\r' || text[start] == '\t')) start++;
    if (start < length && text[start] == '[') {
        if ((rc_plain == MAPPING_OK) != (rc_chunked == MAPPING_OK) ||
            (rc_plain == MAPPING_EPARSE && rc_chunked == MAPPING_EPARSE && a->position != b->position)) {
            fprintf(stderr, "plain %s (%s) vs chunked %s (%s), chunk %zu\n", mapping_error_name(rc_plain), a->message,
                    mapping_error_name(rc_chunked), b->message, chunk);
        }
        /* Both succeed or both fail; an element that does not map, in a chunk before a malformation,
         * may fail the chunked import first with its mapping error (documented). */
        FUZZ_ASSERT((rc_plain == MAPPING_OK) == (rc_chunked == MAPPING_OK));
        if (rc_plain == MAPPING_OK) FUZZ_ASSERT(whole == count);
        if (rc_plain == MAPPING_EPARSE && rc_chunked == MAPPING_EPARSE)
            FUZZ_ASSERT(a->line == b->line && a->column == b->column && a->position == b->position);
    }
    /* A plain import parses the whole text before it changes anything; a chunked one maps the chunks
     * before a malformation, and must undo them. */
    if (transaction) {
        fuzz_graph_end(&plain, rc_plain, rc_plain != MAPPING_EPARSE);
        fuzz_graph_end(&chunked, rc_chunked, 1);
    } else {
        fuzz_graph_after_commit(&plain, rc_plain, rc_plain != MAPPING_EPARSE);
        fuzz_graph_after_commit(&chunked, rc_chunked, 1);
    }
    return 0;
}
