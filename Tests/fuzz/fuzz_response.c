/* Response mapping: input is method NUL url NUL headers NUL body, with a status from the first byte
 * (byte % 11) and, from its other bits, whether the response is mapped in a transaction rolled back
 * after it (most inputs) or commits on its own. Every response must map or fail with a status, and
 * a failure must change nothing. */
#include "fuzz_common.h"

static fuzz_graph graph = {.entities = fuzz_spec_entities, .seed_mapping = "person", .parser = MAPPING_PARSER_JANSSON};

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_people_graph_open(&graph);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int statuses[] = {200, 201, 204, 304, 400, 404, 422, 500, 0, -1, 99999};
    int status = statuses[data[0] % 11];
    int transaction = fuzz_in_transaction(data[0] / 11);
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
    if (transaction) FUZZ_ASSERT(mapping_context_begin(graph.ctx) == MAPPING_OK);
    mapping_list *list = NULL;
    int rc = mapping_response_map(graph.ctx, &response, &list);
    fuzz_status(graph.ctx, rc);
    mapping_list_free(list);
    if (transaction) fuzz_graph_end(&graph, rc, rc != MAPPING_EPARSE);
    else fuzz_graph_after_commit(&graph, rc, rc != MAPPING_EPARSE);
    free(method);
    free(url);
    free(headers);
    return 0;
}
