/* Path patterns and routing: input is pattern NUL path NUL values; matching, interpolation, query
 * decoding and URL resolution must each return a status, and what they write must be readable JSON. */
#include "fuzz_common.h"

static mapping_context *ctx;
static mapping_object person;

/* What the library writes must read back: set as a json attribute's value, it parses. */
static void readable(const char *json) {
    int rc = mapping_object_set(ctx, person, "data", json);
    if (rc == MAPPING_EPARSE) fprintf(stderr, "unreadable output: %s (%s)\n", json, mapping_error_message(ctx));
    FUZZ_ASSERT(rc != MAPPING_EPARSE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!ctx) {
        ctx = fuzz_context();
        FUZZ_ASSERT(mapping_object_create(ctx, "Person", "{\"id\": 1}", &person) == MAPPING_OK);
    }
    char *pattern = fuzz_part(&data, &size);
    char *path = fuzz_part(&data, &size);
    char *values = fuzz_part(&data, &size);
    char *out = NULL;
    if (mapping_path_match(pattern, path, 2, &out) == MAPPING_OK) {
        FUZZ_ASSERT(out != NULL);
        readable(out);
    }
    mapping_free(out);
    out = NULL;
    (void)mapping_path_interpolate(pattern, values, 1, &out);
    mapping_free(out);
    out = NULL;
    if (mapping_query_decode(path, &out) == MAPPING_OK) readable(out);
    mapping_free(out);
    out = NULL;
    (void)mapping_url_resolve(pattern, path, &out);
    mapping_free(out);
    out = NULL;
    (void)mapping_route_path(ctx, NULL, person, NULL, "GET", (unsigned)(size & 1), &out);
    mapping_free(out);
    free(pattern);
    free(path);
    free(values);
    return 0;
}
