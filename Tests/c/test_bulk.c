/* Bulk reads from C: mapping_list_copy (handles in one call, short buffers) and mapping_list_values
 * (one attribute of many objects as a JSON array), with their misuse cases. */
#include "harness.h"

static const char *spec =
    "{\"entities\": {\"Person\": {\"attributes\": {\"id\": \"integer\", \"name\": \"string\", \"born\": \"date\"}}},"
    " \"mappings\": {\"person\": {\"entity\": \"Person\", \"attributes\": {\"id\": \"id\", \"name\": \"name\", \"born\": \"born\"}}}}";

static void test_list_copy(mapping_context *ctx, mapping_list *people) {
    mapping_object all[4] = {0}, one[1] = {0}, second = 0;
    size_t count = 99;
    EXPECT_OK(ctx, mapping_list_copy(people, all, 4, &count));
    EXPECT(count == 3);
    EXPECT_OK(ctx, mapping_list_at(people, 1, &second));
    EXPECT(all[1] == second && all[3] == 0);
    EXPECT_OK(ctx, mapping_list_copy(people, one, 1, &count)); /* a short buffer: the first, and the count */
    EXPECT(count == 3 && one[0] == all[0]);
    EXPECT_OK(ctx, mapping_list_copy(people, NULL, 0, &count));
    EXPECT(count == 3);
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_list_copy(people, NULL, 2, &count));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_list_copy(NULL, all, 4, &count));
    EXPECT(count == 0);
}

static void test_get_values(mapping_context *ctx, mapping_list *people) {
    char *text = NULL;
    EXPECT_OK(ctx, mapping_list_values(ctx, people, "name", &text));
    EXPECT_STR(text, "[\"Ada\",null,\"Grace\"]");
    mapping_free(text);
    EXPECT_OK(ctx, mapping_list_values(ctx, people, "born", &text));
    EXPECT_STR(text, "[0.5,null,86400]"); /* dates as seconds since 1970 in exact decimal text */
    mapping_free(text);
    text = (char *)"untouched";
    EXPECT_RC(ctx, MAPPING_ENAME, mapping_list_values(ctx, people, "age", &text));
    EXPECT(text == NULL && strstr(mapping_error_message(ctx), "object 0") != NULL);
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_list_values(ctx, NULL, "name", &text));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_list_values(ctx, people, "name", NULL));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_list_values(ctx, people, NULL, &text));
    mapping_object second = 0;
    EXPECT_OK(ctx, mapping_list_at(people, 1, &second));
    EXPECT_OK(ctx, mapping_object_delete(ctx, second));
    EXPECT_RC(ctx, MAPPING_ESTALE, mapping_list_values(ctx, people, "name", &text));
    EXPECT(strstr(mapping_error_message(ctx), "object 1") != NULL);
}

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    mapping_list *people = NULL;
    EXPECT_OK(ctx, mapping_context_import(ctx, "person",
                                  "[{\"id\": 1, \"name\": \"Ada\", \"born\": 0.5}, {\"id\": 2},"
                                  " {\"id\": 3, \"name\": \"Grace\", \"born\": \"1970-01-02\"}]",
                                  MAPPING_NUL_TERMINATED, &people));
    test_list_copy(ctx, people);
    test_get_values(ctx, people);
    mapping_list_free(people);
    mapping_context_free(ctx);
    return harness_finish("c bulk");
}
