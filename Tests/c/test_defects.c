/* Regression tests for defects found by fuzzing and misuse from C: each call below once trapped
 * (killing the host), leaked, or answered inconsistently. Each must now return a status. */
#include <stdint.h>

#include "harness.h"

static void test_fetch_with_huge_limit(mapping_context *ctx) {
    mapping_list *list = NULL;
    /* offset 1, limit SIZE_MAX: `start + limit` overflowed. */
    EXPECT_OK(ctx, mapping_entity_fetch(ctx, "Person", NULL, NULL, "id", 1, SIZE_MAX, 0, &list));
    EXPECT(mapping_list_count(list) == 1);
    mapping_list_free(list);
    EXPECT_OK(ctx, mapping_entity_fetch(ctx, "Person", NULL, NULL, NULL, SIZE_MAX, SIZE_MAX, 0, &list));
    EXPECT(mapping_list_count(list) == 0);
    mapping_list_free(list);
}

static long long field(mapping_paginator *paginator, const char *name) {
    long long value = -99;
    EXPECT_OK(NULL, mapping_paginator_field(paginator, name, &value));
    return value;
}

static void test_paginator_arithmetic(mapping_context *ctx) {
    mapping_paginator *paginator = NULL;
    char *path = NULL;
    EXPECT_OK(ctx, mapping_paginator_new(ctx, "/people?page=:currentPage&offset=:offset", 100, &paginator));
    /* page 2^62 at 100 per page: the offset does not fit. */
    EXPECT_RC(NULL, MAPPING_ERANGE, mapping_paginator_path(paginator, (size_t)1 << 62, &path));
    EXPECT(path == NULL);
    EXPECT_OK(NULL, mapping_paginator_path(paginator, 3, &path));
    EXPECT_STR(path, "/people?page=3&offset=200");
    mapping_free(path);

    /* Bodies from a server: each of these trapped. */
    EXPECT_OK(NULL, mapping_paginator_update(paginator, 1, "{\"per_page\": 1e300, \"current_page\": 1}", MAPPING_NUL_TERMINATED));
    EXPECT(field(paginator, "perPage") == 100);  /* not a count: ignored */
    EXPECT_OK(NULL, mapping_paginator_update(paginator, 1, "{\"per_page\": 10, \"total_entries\": 9223372036854775807}",
                                             MAPPING_NUL_TERMINATED));
    EXPECT(field(paginator, "pageCount") == 922337203685477581LL);
    EXPECT(field(paginator, "objectCount") == INT64_MAX);
    EXPECT_OK(NULL, mapping_paginator_update(paginator, 1, "{\"per_page\": 10, \"current_page\": 9223372036854775807}",
                                             MAPPING_NUL_TERMINATED));
    long long offset = 0;
    EXPECT_RC(NULL, MAPPING_ERANGE, mapping_paginator_field(paginator, "offset", &offset));
    EXPECT_OK(NULL, mapping_paginator_update(paginator, 1, "{\"per_page\": -5, \"current_page\": 2, \"total_entries\": -1}",
                                             MAPPING_NUL_TERMINATED));
    EXPECT(field(paginator, "perPage") == 10);  /* negative sizes and counts are ignored */
    EXPECT(field(paginator, "objectCount") == -1);
    EXPECT(field(paginator, "offset") == 10);
    mapping_paginator_free(paginator);

    /* A paginator created with SIZE_MAX per page. */
    EXPECT_OK(ctx, mapping_paginator_new(ctx, "/people?offset=:offset", SIZE_MAX, &paginator));
    EXPECT_RC(NULL, MAPPING_ERANGE, mapping_paginator_path(paginator, 3, &path));
    EXPECT_OK(NULL, mapping_paginator_path(paginator, 1, &path));
    EXPECT_STR(path, "/people?offset=0");
    mapping_free(path);
    mapping_paginator_free(paginator);
}

static void test_invalid_utf8_arguments(mapping_context *ctx) {
    mapping_list *list = NULL;
    mapping_object object = 0;
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_entity_fetch(ctx, "Person", "name == 'a\xff'", NULL, NULL, 0, 0, 0, &list));
    EXPECT(strstr(mapping_error_message(ctx), "UTF-8") != NULL);
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_entity_fetch(ctx, "Person", NULL, NULL, "n\xc3", 0, 0, 0, &list));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_entity_find(ctx, "Pers\xe9n", "1", &object));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_entity_find(ctx, "Person", "\xff", &object));
}

static const char *request_spec =
    "{\"entities\": {\"User\": {\"attributes\": {\"id\": \"integer\", \"data\": \"json\"}, \"identification\": \"id\","
    "                          \"relationships\": {\"friends\": {\"entity\": \"User\", \"toMany\": true, \"ordered\": true}}}},"
    " \"mappings\": {\"user\": {\"entity\": \"User\", \"attributes\": {\"id\": \"id\"}}},"
    " \"requestDescriptors\": [{\"entity\": \"User\", \"method\": \"POST\", \"mapping\": \"user\"}]}";

static void test_smaller_defects(void) {
    mapping_context *a = NULL, *b = NULL;
    EXPECT_OK(NULL, mapping_context_new(request_spec, MAPPING_NUL_TERMINATED, &a));
    EXPECT_OK(NULL, mapping_context_new(request_spec, MAPPING_NUL_TERMINATED, &b));
    mapping_object ada = 0, bob = 0, foreign = 0;
    EXPECT_OK(a, mapping_object_create(a, "User", "{\"id\": 1, \"data\": {\"k\": [1, 2]}}", &ada));
    EXPECT_OK(a, mapping_object_create(a, "User", "{\"id\": 2}", &bob));
    EXPECT_OK(b, mapping_object_create(b, "User", "{\"id\": 1}", &foreign));

    /* mapping_object_get_json with a NULL output: an error, and nothing allocated (valgrind checks). */
    EXPECT_RC(a, MAPPING_EMISUSE, mapping_object_get_json(a, ada, "data", NULL));

    /* mapping_object_add_related past the end is ERANGE, as mapping_object_move_related says. */
    EXPECT_RC(a, MAPPING_ERANGE, mapping_object_add_related(a, ada, "friends", bob, SIZE_MAX - 1));
    EXPECT_RC(a, MAPPING_ERANGE, mapping_object_add_related(a, ada, "friends", bob, 1));
    EXPECT_OK(a, mapping_object_add_related(a, ada, "friends", bob, 0));
    EXPECT_OK(a, mapping_object_add_related(a, ada, "friends", ada, MAPPING_APPEND));
    EXPECT_RC(a, MAPPING_ERANGE, mapping_object_move_related(a, ada, "friends", 0, SIZE_MAX - 1));

    /* mapping_list_parameters with another context's handle: stale, like every other call. */
    mapping_list *list = NULL;
    char *text = NULL;
    EXPECT_OK(NULL, mapping_list_new(&foreign, 1, &list));
    EXPECT_RC(a, MAPPING_ESTALE, mapping_list_parameters(a, list, "POST", 0, &text));
    mapping_list_free(list);

    /* A parse error at the first byte is at column 1; nesting past jansson's limit is EDEPTH. */
    EXPECT_RC(a, MAPPING_EPARSE, mapping_context_import(a, "user", "x", MAPPING_NUL_TERMINATED, NULL));
    EXPECT(mapping_error_last(a)->line == 1 && mapping_error_last(a)->column == 1);
    EXPECT_RC(a, MAPPING_EPARSE, mapping_context_import(a, "user", "", MAPPING_NUL_TERMINATED, NULL));
    EXPECT(mapping_error_last(a)->column == 1);
    enum { DEEP = 3000 };
    char *deep = malloc(2 * DEEP + 1);
    for (int i = 0; i < DEEP; i++) { deep[i] = '['; deep[2 * DEEP - 1 - i] = ']'; }
    deep[2 * DEEP] = '\0';
    EXPECT_RC(a, MAPPING_EDEPTH, mapping_context_import(a, "user", deep, MAPPING_NUL_TERMINATED, NULL));
    EXPECT(mapping_error_last(a)->line == 1 && mapping_error_last(a)->column > 2000);
    free(deep);

    /* Query keys holding NUL would be JSON the library cannot read back: refused. */
    EXPECT_RC(NULL, MAPPING_EPARSE, mapping_query_decode("a%00b=1", &text));
    EXPECT(text == NULL);
    EXPECT_RC(NULL, MAPPING_EPARSE, mapping_path_match("/users/:id", "/users/7?x%00=1", 2, &text));
    EXPECT_OK(NULL, mapping_query_decode("a=%00", &text));  /* NUL in a value is fine */
    EXPECT_STR(text, "{\"a\":\"\\u0000\"}");
    mapping_free(text);

    /* A bounded input size: a longer payload is refused before parsing, whichever import takes it. */
    const char *payload = "[{\"id\": 7}, {\"id\": 8}]";
    EXPECT_OK(a, mapping_context_set_max_input(a, 10));
    EXPECT_RC(a, MAPPING_ERANGE, mapping_context_import(a, "user", payload, MAPPING_NUL_TERMINATED, NULL));
    EXPECT(strstr(mapping_error_message(a), "maximum of 10") != NULL);
    EXPECT_RC(a, MAPPING_ERANGE, mapping_context_import_chunked(a, "user", payload, MAPPING_NUL_TERMINATED, MAPPING_CHUNKS_ARRAY,
                                                        1, NULL, NULL));
    EXPECT_OK(a, mapping_context_import(a, "user", "{\"id\": 9}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_OK(a, mapping_context_set_max_input(a, 0));
    EXPECT_OK(a, mapping_context_import(a, "user", payload, MAPPING_NUL_TERMINATED, NULL));

    size_t count = 0;
    EXPECT_OK(a, mapping_entity_count(a, "User", &count));
    EXPECT(count == 5);
    mapping_context_free(a);
    mapping_context_free(b);
}

int main(int argc, char **argv) {
    mapping_context *ctx = harness_context(argc > 1 ? argv[1] : "Tests/fixtures", "people.spec.json");
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", "{\"data\": {\"people\": [{\"id\": 1}, {\"id\": 2}]}}",
                                  MAPPING_NUL_TERMINATED, NULL));
    test_fetch_with_huge_limit(ctx);
    test_paginator_arithmetic(ctx);
    test_invalid_utf8_arguments(ctx);
    mapping_context_free(ctx);
    test_smaller_defects();
    return harness_finish("c defects");
}
