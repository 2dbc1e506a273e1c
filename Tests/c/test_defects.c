/* Regression tests for defects found by fuzzing and misuse from C: each call below once trapped
 * (killing the host), leaked, or answered inconsistently. Each must now return a status. */
#include <stdint.h>

#include "harness.h"

static void test_fetch_with_huge_limit(mapping_context *ctx) {
    mapping_list *list = NULL;
    /* offset 1, limit SIZE_MAX: `start + limit` overflowed. */
    EXPECT_OK(ctx, mapping_fetch(ctx, "Person", NULL, NULL, "id", 1, SIZE_MAX, 0, &list));
    EXPECT(mapping_list_count(list) == 1);
    mapping_list_free(list);
    EXPECT_OK(ctx, mapping_fetch(ctx, "Person", NULL, NULL, NULL, SIZE_MAX, SIZE_MAX, 0, &list));
    EXPECT(mapping_list_count(list) == 0);
    mapping_list_free(list);
}

static long long field(mapping_paginator *paginator, const char *name) {
    long long value = -99;
    EXPECT_OK(NULL, mapping_paginator_get(paginator, name, &value));
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
    EXPECT_RC(NULL, MAPPING_ERANGE, mapping_paginator_get(paginator, "offset", &offset));
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
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_fetch(ctx, "Person", "name == 'a\xff'", NULL, NULL, 0, 0, 0, &list));
    EXPECT(strstr(mapping_errmsg(ctx), "UTF-8") != NULL);
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_fetch(ctx, "Person", NULL, NULL, "n\xc3", 0, 0, 0, &list));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_get(ctx, "Pers\xe9n", "1", &object));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_get(ctx, "Person", "\xff", &object));
}

int main(int argc, char **argv) {
    mapping_context *ctx = harness_context(argc > 1 ? argv[1] : "Tests/fixtures", "people.spec.json");
    EXPECT_OK(ctx, mapping_import(ctx, "person", "{\"data\": {\"people\": [{\"id\": 1}, {\"id\": 2}]}}",
                                  MAPPING_NUL_TERMINATED, NULL));
    test_fetch_with_huge_limit(ctx);
    test_paginator_arithmetic(ctx);
    test_invalid_utf8_arguments(ctx);
    mapping_context_free(ctx);
    return harness_finish("c defects");
}
