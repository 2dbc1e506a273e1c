/* 06 — Map an HTTP response the host fetched itself (here: read from a file), with the spec's response
 * descriptors, and build the URL of an object from the spec's routes-free path patterns.
 * Introduces: mapping_response_map, mapping_response, mapping_path_interpolate_object, mapping_url_resolve. */
#include "common.h"

int main(int argc, char **argv) {
    const char *dir = data_dir(argc, argv);
    mapping_context *ctx = open_context(dir, "github.spec.json");
    size_t length;
    char *body = read_file(dir, "github_events.json", &length);

    mapping_response response = MAPPING_RESPONSE_INIT;
    response.url = "https://api.github.com/events?page=1";
    response.base_url = "https://api.github.com";
    response.status = 200;
    response.body = body;
    response.body_len = length;
    response.headers = "{\"Accept\": \"application/json\"}";
    mapping_list *events = NULL;
    CHECK_MAPPING(ctx, mapping_response_map(ctx, &response, &events));
    printf("mapped %zu events from GET %s\n", mapping_list_count(events), response.url);

    /* The same URL answered 404 with an error payload: an error carrying the payload's message. */
    response.status = 404;
    response.body = "{\"message\": \"Not Found\"}";
    response.body_len = MAPPING_NUL_TERMINATED;
    int rc = mapping_response_map(ctx, &response, NULL);
    printf("404: %s: %s\n", mapping_error_name(rc), mapping_error_message(ctx));

    mapping_object event;
    char *path = NULL, *url = NULL;
    CHECK_MAPPING(ctx, mapping_list_at(events, 0, &event));
    CHECK_MAPPING(ctx, mapping_path_interpolate_object(ctx, "repos/:repo.name/events/:id", event, 0, &path));
    CHECK_MAPPING(NULL, mapping_url_resolve("https://api.github.com/", path, &url));
    printf("first event: %s\n", url);
    mapping_free(path);
    mapping_free(url);
    free(body);
    mapping_list_free(events);
    mapping_context_free(ctx);
    return rc == MAPPING_ERESPONSE ? 0 : 1;
}
