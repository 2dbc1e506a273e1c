/* Path patterns and routing: input is pattern NUL path NUL values; matching, interpolation, query
 * decoding and URL resolution must each return a status, and what they write must be readable JSON. */
#include "fuzz_common.h"

static mapping_context *ctx;
static mapping_object person;

static void cleanup(void) { mapping_context_free(ctx); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    FUZZ_KEEP({
        ctx = fuzz_context();
        FUZZ_ASSERT(mapping_object_create(ctx, "Person", "{\"id\": 1}", &person) == MAPPING_OK);
    });
    atexit(cleanup);
    return 0;
}

/* What the library writes must read back: set as a json attribute's value (in a transaction rolled
 * back at once, so the person stays as it was), it parses. */
static void readable(const char *json) {
    FUZZ_ASSERT(mapping_context_begin(ctx) == MAPPING_OK);
    int rc = mapping_object_set(ctx, person, "data", json);
    if (rc == MAPPING_EPARSE) fprintf(stderr, "unreadable output: %s (%s)\n", json, mapping_error_message(ctx));
    FUZZ_ASSERT(rc != MAPPING_EPARSE);
    fuzz_status(ctx, rc);
    int rolled = mapping_context_rollback(ctx);
    FUZZ_ASSERT(rolled == MAPPING_OK || (rc != MAPPING_OK && rolled == MAPPING_EMISUSE));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *pattern = fuzz_part(&data, &size);
    char *path = fuzz_part(&data, &size);
    char *values = fuzz_part(&data, &size);
    char *out = NULL;
    int rc = mapping_path_match(pattern, path, 2, &out);
    FUZZ_ASSERT(fuzz_known(rc));
    if (rc == MAPPING_OK) {
        FUZZ_ASSERT(out != NULL);
        readable(out);
    }
    mapping_free(out);
    out = NULL;
    FUZZ_ASSERT(fuzz_known(mapping_path_interpolate(pattern, values, 1, &out)));
    mapping_free(out);
    out = NULL;
    rc = mapping_query_decode(path, &out);
    FUZZ_ASSERT(fuzz_known(rc));
    if (rc == MAPPING_OK) readable(out);
    mapping_free(out);
    out = NULL;
    FUZZ_ASSERT(fuzz_known(mapping_url_resolve(pattern, path, &out)));
    mapping_free(out);
    out = NULL;
    rc = mapping_route_path(ctx, NULL, person, NULL, "GET", (unsigned)(size & 1), &out);
    fuzz_status(ctx, rc);
    mapping_free(out);
    free(pattern);
    free(path);
    free(values);
    return 0;
}
