/* The chunk splitter, differentially: a chunked import (chunk size from the first byte) must accept
 * and reject exactly what a plain import of the same array does, with the same code and position. */
#include "fuzz_common.h"

static const char *tag_spec =
    "{\"entities\": {\"Tag\": {\"attributes\": {\"label\": \"string\", \"n\": \"integer\"}, \"identification\": \"label\"}},"
    " \"mappings\": {\"tag\": {\"entity\": \"Tag\", \"attributes\": {\"label\": \"label\", \"n\": \"n\"}}}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* Two contexts kept between runs: both see the same imports, and a failed import changes
     * neither, so their graphs stay alike; renewed now and then so they do not only grow. */
    static mapping_context *plain, *chunked;
    static unsigned runs;
    if (size < 1) return 0;
    if (runs++ % 1024 == 0) {
        mapping_context_free(plain);
        mapping_context_free(chunked);
        FUZZ_ASSERT(mapping_context_new(tag_spec, MAPPING_NUL_TERMINATED, &plain) == MAPPING_OK);
        FUZZ_ASSERT(mapping_context_new(tag_spec, MAPPING_NUL_TERMINATED, &chunked) == MAPPING_OK);
    }
    size_t chunk = (size_t)(data[0] % 4) + 1;
    const char *text = (const char *)data + 1;
    size_t length = size - 1;
    mapping_list *list = NULL;
    int rc_plain = mapping_context_import(plain, "tag", text, length, &list);
    size_t whole = mapping_list_count(list);
    mapping_list_free(list);
    size_t count = 0;
    int rc_chunked = mapping_context_import_chunked(chunked, "tag", text, length, MAPPING_CHUNKS_ARRAY, chunk, NULL, &count);
    const mapping_error *a = mapping_error_last(plain), *b = mapping_error_last(chunked);
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
    return 0;
}
