/* Response mapping: input is method NUL url NUL headers NUL body, with a status from the first byte.
 * Every response must map or fail with a status, and a failure must change nothing. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static mapping_context *ctx;
    static unsigned runs;
    if (size < 1) return 0;
    if (runs++ % 512 == 0) {
        mapping_context_free(ctx);
        ctx = fuzz_context();
    }
    int statuses[] = {200, 201, 204, 304, 400, 404, 422, 500, 0, -1, 99999};
    int status = statuses[data[0] % 11];
    data++;
    size--;
    char *method = fuzz_part(&data, &size);
    char *url = fuzz_part(&data, &size);
    char *headers = fuzz_part(&data, &size);
    mapping_response response = MAPPING_RESPONSE_INIT;
    response.method = method;
    response.url = url;
    response.status = status;
    response.headers = headers[0] ? headers : NULL;
    response.body = (const char *)data;
    response.body_len = size;
    response.base_url = "http://api.example.com/";
    size_t before = 0, after = 0;
    FUZZ_ASSERT(mapping_entity_count(ctx, "Person", &before) == MAPPING_OK);
    mapping_list *list = NULL;
    int rc = mapping_response_map(ctx, &response, &list);
    mapping_list_free(list);
    FUZZ_ASSERT(mapping_entity_count(ctx, "Person", &after) == MAPPING_OK);
    if (rc != MAPPING_OK) FUZZ_ASSERT(after == before);
    free(method);
    free(url);
    free(headers);
    return 0;
}
