/* 04 — Errors: malformed JSON reports line and column, a wrong type reports the JSON path and the
 * attribute, and a failed import changes nothing.
 * Introduces: mapping_error_last, mapping_error_name, all-or-nothing imports. */
#include "common.h"

static void show(mapping_context *ctx, int rc) {
    const mapping_error *error = mapping_error_last(ctx);
    printf("%s: %s\n", mapping_error_name(rc), error->message);
    if (error->line) printf("  at line %d, column %d (byte %lld)\n", error->line, error->column, error->position);
    if (error->path[0]) printf("  path %s, attribute %s\n", error->path, error->attribute);
}

int main(int argc, char **argv) {
    mapping_context *ctx = open_context(data_dir(argc, argv), "github.spec.json");
    size_t before = 0, after = 0;
    CHECK_MAPPING(ctx, mapping_context_import(ctx, "event", "[{\"id\": \"1\", \"type\": \"PushEvent\"}]",
                                      MAPPING_NUL_TERMINATED, NULL));
    CHECK_MAPPING(ctx, mapping_entity_count(ctx, "Event", &before));

    show(ctx, mapping_context_import(ctx, "event", "[{\"id\": \"2\",\n  \"type\": }]", MAPPING_NUL_TERMINATED, NULL));
    show(ctx, mapping_context_import(ctx, "event",
                             "[{\"id\": \"3\", \"type\": \"X\"}, {\"id\": \"4\", \"actor\": {\"id\": \"abc\"}}]",
                             MAPPING_NUL_TERMINATED, NULL));

    CHECK_MAPPING(ctx, mapping_entity_count(ctx, "Event", &after));
    printf("events before: %zu, after two failed imports: %zu\n", before, after);

    mapping_context *bad = NULL;
    show(NULL, mapping_context_new("{\"entities\": {\"A\": {\"attributes\": {\"x\": \"text\"}}}, \"mappings\": {}}",
                                   MAPPING_NUL_TERMINATED, &bad));
    mapping_context_free(ctx);
    return after == before ? 0 : 1;
}
