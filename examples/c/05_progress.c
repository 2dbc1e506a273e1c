/* 05 — A large import with progress reports and metadata: 60,000 generated people.
 * Introduces: mapping_context_import_with, mapping_import_options (metadata, on_progress). */
#include "common.h"

static const char *SPEC =
    "{\"entities\": {"
    " \"Person\": {\"attributes\": {\"id\": \"integer\", \"name\": \"string\", \"source\": \"string\"},"
    "  \"relationships\": {\"company\": {\"entity\": \"Company\", \"inverse\": \"employees\"}}},"
    " \"Company\": {\"attributes\": {\"id\": \"integer\"},"
    "  \"relationships\": {\"employees\": {\"entity\": \"Person\", \"toMany\": true, \"inverse\": \"company\"}}}},"
    " \"mappings\": {"
    " \"person\": {\"entity\": \"Person\", \"rootPath\": \"people\","
    "  \"attributes\": {\"id\": \"id\", \"name\": \"name\", \"source\": \"@metadata.source\"},"
    "  \"relationships\": {\"company\": {\"mapping\": \"company\"}}},"
    " \"company\": {\"entity\": \"Company\", \"attributes\": {\"id\": \"id\"}}}}";

static void report(size_t done, size_t known, void *payload) {
    (void)payload;
    fprintf(stderr, "\r%zu / %zu objects", done, known);
}

int main(void) {
    enum { PEOPLE = 60000 };
    char *payload = malloc(PEOPLE * 64 + 32);
    size_t at = (size_t)sprintf(payload, "{\"people\": [");
    for (int i = 1; i <= PEOPLE; i++) {
        at += (size_t)sprintf(payload + at, "%s{\"id\": %d, \"name\": \"Person %d\", \"company\": {\"id\": %d}}",
                              i > 1 ? "," : "", i, i, i % 500 + 1);
    }
    at += (size_t)sprintf(payload + at, "]}");

    mapping_context *ctx = NULL;
    CHECK_MAPPING(NULL, mapping_context_new(SPEC, MAPPING_NUL_TERMINATED, &ctx));
    mapping_import_options options = MAPPING_IMPORT_OPTIONS_INIT;
    options.metadata = "{\"source\": \"generated\"}";
    options.metadata_len = MAPPING_NUL_TERMINATED;
    options.on_progress = report;
    options.progress_interval = 10000;
    const char *mappings[] = {"person"};
    mapping_list *people = NULL;
    CHECK_MAPPING(ctx, mapping_context_import_with(ctx, mappings, 1, payload, at, &options, &people));
    fprintf(stderr, "\n");

    size_t companies = 0;
    CHECK_MAPPING(ctx, mapping_entity_count(ctx, "Company", &companies));
    printf("imported %zu people and %zu companies\n", mapping_list_count(people), companies);
    free(payload);
    mapping_list_free(people);
    mapping_context_free(ctx);
    return 0;
}
