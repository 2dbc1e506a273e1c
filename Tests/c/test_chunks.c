/* mapping_context_import_chunked from C: an array and JSON Lines in small chunks, all or nothing across
 * chunks, a parse error located in the whole input, and misuse. */
#include "harness.h"

static const char *spec =
    "{\"entities\": {\"Item\": {\"attributes\": {\"id\": \"integer\", \"label\": \"string\"}}},"
    " \"mappings\": {\"item\": {\"entity\": \"Item\", \"attributes\": {\"id\": \"id\", \"label\": \"label\"}}}}";

static size_t items(mapping_context *ctx) {
    size_t count = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Item", &count));
    return count;
}

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    size_t count = 0;
    EXPECT_OK(ctx, mapping_context_import_chunked(ctx, "item", "[{\"id\": 1}, {\"id\": 2}, {\"id\": 3}, {\"id\": 1, \"label\": \"one\"}]",
                                          MAPPING_NUL_TERMINATED, MAPPING_CHUNKS_ARRAY, 2, NULL, &count));
    EXPECT(count == 4 && items(ctx) == 3);
    EXPECT_OK(ctx, mapping_context_import_chunked(ctx, "item", "{\"id\": 4}\n\n{\"id\": 5}\n", MAPPING_NUL_TERMINATED,
                                          MAPPING_CHUNKS_LINES, 1, NULL, &count));
    EXPECT(count == 2 && items(ctx) == 5);
    /* A bad value in the third chunk: the first two are undone too. */
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_context_import_chunked(ctx, "item", "[{\"id\": 6}, {\"id\": 7}, {\"id\": \"x\"}]",
                                                         MAPPING_NUL_TERMINATED, MAPPING_CHUNKS_ARRAY, 1, NULL, &count));
    EXPECT(count == 0 && items(ctx) == 5);
    EXPECT_RC(ctx, MAPPING_EPARSE, mapping_context_import_chunked(ctx, "item", "[{\"id\": 8},\n{\"id\": 9,,}]",
                                                          MAPPING_NUL_TERMINATED, MAPPING_CHUNKS_ARRAY, 1, NULL, &count));
    const mapping_error *error = mapping_error_last(ctx);
    EXPECT(error != NULL && error->line == 2 && items(ctx) == 5);
    /* Once looping forever with chunks of one, or accepted: each is now the plain import's parse error,
     * at the same line, column and position, and nothing is imported. */
    const char *malformed[] = {"[0},", "[1}", "[1,,2]", "[,]", "[1,]", "[,1]", "[{\"id\": 10}, {\"id\": 11},\n ]"};
    for (size_t i = 0; i < sizeof malformed / sizeof *malformed; i++) {
        for (size_t size = 1; size <= 3; size++) {
            EXPECT_RC(ctx, MAPPING_EPARSE, mapping_context_import(ctx, "item", malformed[i], MAPPING_NUL_TERMINATED, NULL));
            mapping_error plain = *mapping_error_last(ctx);
            EXPECT_RC(ctx, MAPPING_EPARSE, mapping_context_import_chunked(ctx, "item", malformed[i], MAPPING_NUL_TERMINATED,
                                                                  MAPPING_CHUNKS_ARRAY, size, NULL, &count));
            error = mapping_error_last(ctx);
            EXPECT(error->line == plain.line && error->column == plain.column && error->position == plain.position);
            EXPECT(count == 0 && items(ctx) == 5);
        }
    }
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_import_chunked(ctx, "item", "[]", 2, 7, 1, NULL, &count));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_import_chunked(ctx, NULL, "[]", 2, MAPPING_CHUNKS_ARRAY, 1, NULL, &count));
    EXPECT_RC(ctx, MAPPING_ENAME, mapping_context_import_chunked(ctx, "nope", "[]", 2, MAPPING_CHUNKS_ARRAY, 1, NULL, NULL));
    mapping_context_free(ctx);
    return harness_finish("c chunks");
}
