/* Regression tests for defects found by fuzzing and misuse from C: each call below once trapped
 * (killing the host), leaked, or answered inconsistently. Each must now return a status. */
#define _POSIX_C_SOURCE 200809L  /* mkstemp, unlink */
#include <math.h>
#include <stdint.h>
#include <unistd.h>

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

    /* A bounded input size: a payload costing more is refused before parsing, whichever import takes
     * it. Each [ and { counts 16 bytes besides its own: the payload (22 bytes, 3 containers) costs 70,
     * {"id": 9} costs 25. */
    const char *payload = "[{\"id\": 7}, {\"id\": 8}]";
    EXPECT_OK(a, mapping_context_set_max_input(a, 30));
    EXPECT_RC(a, MAPPING_ERANGE, mapping_context_import(a, "user", payload, MAPPING_NUL_TERMINATED, NULL));
    EXPECT(strstr(mapping_error_message(a), "costs as 70 bytes") != NULL);
    EXPECT(strstr(mapping_error_message(a), "maximum of 30") != NULL);
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


/* Values and positions: dates exact through mapping_object_get_date_us and mapping_list_values
 * whatever the year, -0.0 through an SQLite store, a NUL byte refused at its own 0-based offset by
 * both parsers, plain and chunked alike. */
static const char *values_spec =
    "{\"entities\": {\"T\": {\"attributes\": {\"label\": \"string\", \"n\": \"integer\", \"at\": \"date\", \"d\": \"double\"},"
    " \"identification\": \"label\"}}, \"mappings\": {\"t\": {\"entity\": \"T\", \"attributes\": {\"label\": \"label\","
    " \"n\": \"n\", \"at\": \"at\", \"d\": \"d\"}}}}";

static void test_exact_dates(void) {
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(values_spec, MAPPING_NUL_TERMINATED, &ctx));
    EXPECT_OK(ctx, mapping_context_import(ctx, "t", "[{\"label\": \"a\", \"at\": \"2300-01-01T00:00:00.000001Z\"},"
                                          " {\"label\": \"b\", \"at\": \"9999-12-31T23:59:59.999999Z\"},"
                                          " {\"label\": \"c\", \"at\": \"0001-01-01T00:00:00.000001Z\"},"
                                          " {\"label\": \"d\", \"at\": \"1969-12-31T23:59:59.5Z\"}]", MAPPING_NUL_TERMINATED, NULL));
    const char *labels[] = {"\"a\"", "\"b\"", "\"c\"", "\"d\""};
    const int64_t expected[] = {10413792000000001LL, 253402300799999999LL, -62135596799999999LL, -500000LL};
    mapping_list *all = NULL;
    EXPECT_OK(ctx, mapping_entity_fetch(ctx, "T", NULL, NULL, "label", 0, 0, 0, &all));
    for (int i = 0; i < 4; i++) {
        mapping_object object = MAPPING_NO_OBJECT;
        int64_t micros = 0;
        EXPECT_OK(ctx, mapping_entity_find(ctx, "T", labels[i], &object));
        EXPECT_OK(ctx, mapping_object_get_date_us(ctx, object, "at", &micros));
        EXPECT(micros == expected[i]);
        EXPECT_RC(ctx, MAPPING_ETYPE, mapping_object_get_date_us(ctx, object, "label", &micros));
    }
    char *column = NULL;
    EXPECT_OK(ctx, mapping_list_values(ctx, all, "at", &column));
    EXPECT_STR(column, "[10413792000.000001,253402300799.999999,-62135596799.999999,-0.5]");
    mapping_free(column);
    mapping_list_free(all);
    mapping_context_free(ctx);
}

static void test_negative_zero_through_a_store(void) {
    char path[] = "/tmp/mapping-negzero-XXXXXX";
    int fd = mkstemp(path);
    EXPECT(fd >= 0);
    close(fd);
    unlink(path);
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_open(values_spec, MAPPING_NUL_TERMINATED, path, MAPPING_OPEN_CREATE, &ctx));
    EXPECT_OK(ctx, mapping_context_import(ctx, "t", "[{\"label\": \"z\", \"d\": -0.0}]", MAPPING_NUL_TERMINATED, NULL));
    mapping_context_free(ctx);
    EXPECT_OK(NULL, mapping_context_open(values_spec, MAPPING_NUL_TERMINATED, path, 0, &ctx));
    mapping_object object = MAPPING_NO_OBJECT;
    double value = 1;
    EXPECT_OK(ctx, mapping_entity_find(ctx, "T", "\"z\"", &object));
    EXPECT_OK(ctx, mapping_object_get_double(ctx, object, "d", &value));
    EXPECT(value == 0 && signbit(value));
    mapping_context_free(ctx);
    unlink(path);
}

static void test_nul_bytes_and_positions(void) {
    /* byte 22 is the NUL; without it, byte 29 is the y */
    static const char with_nul[] = "[{\"label\": \"a\", \"n\": 0\0}, {\"x\"y: 1}]";
    static const char without[] = "[{\"label\": \"a\", \"n\": 0}, {\"x\"y: 1}]";
    struct { const char *text; size_t len; long long position; int column; } cases[] = {
        {with_nul, sizeof with_nul - 1, 22, 23}, {without, sizeof without - 1, 29, 30}, {"x", 1, 0, 1},
    };
    for (int parser = MAPPING_PARSER_JANSSON; parser <= MAPPING_PARSER_SIMDJSON; parser++) {
        if (!mapping_parser_is_available(parser)) continue;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            for (int chunked = 0; chunked < 2; chunked++) {
                mapping_context *ctx = NULL;
                EXPECT_OK(NULL, mapping_context_new(values_spec, MAPPING_NUL_TERMINATED, &ctx));
                EXPECT_OK(ctx, mapping_context_set_parser(ctx, parser));
                int rc = chunked ? mapping_context_import_chunked(ctx, "t", cases[i].text, cases[i].len, MAPPING_CHUNKS_ARRAY, 1, NULL, NULL)
                                 : mapping_context_import(ctx, "t", cases[i].text, cases[i].len, NULL);
                EXPECT(rc == MAPPING_EPARSE);
                const mapping_error *error = mapping_error_last(ctx);
                if (i == 2 && chunked) {  /* a chunked import wants an array: said at the first byte */
                    EXPECT(error->position == 0 && error->column == 1);
                } else {
                    EXPECT(error->position == cases[i].position && error->column == cases[i].column && error->line == 1);
                }
                if (i == 0) EXPECT(strstr(error->message, "NUL byte") != NULL);
                size_t count = 9;
                EXPECT_OK(ctx, mapping_entity_count(ctx, "T", &count));
                EXPECT(count == 0);
                mapping_context_free(ctx);
            }
        }
    }
}

/* Found by fuzzing: a chunked import inside the caller's transaction that fails to parse after
 * some chunks were mapped rolls the whole transaction back (it used to keep those chunks), while
 * a call refused before it changed anything leaves the transaction open and as it was; and the
 * earliest malformation is reported, a NUL byte after it included, alike plain and chunked. */
static void test_chunked_failure_inside_a_transaction(void) {
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(values_spec, MAPPING_NUL_TERMINATED, &ctx));
    EXPECT_OK(ctx, mapping_context_import(ctx, "t", "[{\"label\": \"a\", \"n\": 1}]", MAPPING_NUL_TERMINATED, NULL));
    static const char input[] = "[{\"label\": \"a\", \"n\": 2}, {\"label\": \"b\"}, {\"label\": \"c\"} x]";
    EXPECT_OK(ctx, mapping_context_begin(ctx));
    EXPECT_OK(ctx, mapping_context_import(ctx, "t", "[{\"label\": \"z\"}]", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_RC(ctx, MAPPING_EPARSE, mapping_context_import_chunked(ctx, "t", input, sizeof input - 1, MAPPING_CHUNKS_ARRAY, 1,
                                                                 NULL, NULL));
    EXPECT(strstr(mapping_error_message(ctx), "rolled back") != NULL);
    /* The failed transaction stays open and takes no more changes (nothing is committed behind it);
     * commit ends it saying nothing was committed, with the failure's code. */
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_import(ctx, "t", "[{\"label\": \"y\"}]", MAPPING_NUL_TERMINATED, NULL));
    EXPECT(strstr(mapping_error_message(ctx), "takes no more changes: end it with rollback") != NULL);
    EXPECT_RC(ctx, MAPPING_EPARSE, mapping_context_commit(ctx));
    EXPECT(strstr(mapping_error_message(ctx), "nothing was committed") != NULL);
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_commit(ctx));  /* ended */
    size_t count = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "T", &count));
    EXPECT(count == 1);  /* z went with the transaction; b is not there */
    mapping_object a = MAPPING_NO_OBJECT;
    int64_t n = 0;
    EXPECT_OK(ctx, mapping_entity_find(ctx, "T", "\"a\"", &a));
    EXPECT_OK(ctx, mapping_object_get_int64(ctx, a, "n", &n));
    EXPECT(n == 1);
    /* Refused before changing anything: the transaction stays open with what it held. */
    EXPECT_OK(ctx, mapping_context_begin(ctx));
    EXPECT_OK(ctx, mapping_context_import(ctx, "t", "[{\"label\": \"y\"}]", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_RC(ctx, MAPPING_EPARSE, mapping_context_import_chunked(ctx, "t", "x", 1, MAPPING_CHUNKS_ARRAY, 1, NULL, NULL));
    EXPECT_RC(ctx, MAPPING_EPARSE, mapping_context_import(ctx, "t", "[1,,]", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_OK(ctx, mapping_context_commit(ctx));
    EXPECT_OK(ctx, mapping_entity_count(ctx, "T", &count));
    EXPECT(count == 2);
    mapping_context_free(ctx);
}

static void test_the_earliest_malformation_is_reported(void) {
    static const char comma_then_nul[] = "[{\"label\": \"a\"}, ,\0]";
    static const char token_then_nul[] = "{\"label\": \"a\"} x\0";
    struct { const char *text; size_t len; long long position; const char *words; } cases[] = {
        {comma_then_nul, sizeof comma_then_nul - 1, 17, "near ','"},
        {token_then_nul, sizeof token_then_nul - 1, 15, "x"},
    };
    for (int parser = MAPPING_PARSER_JANSSON; parser <= MAPPING_PARSER_SIMDJSON; parser++) {
        if (!mapping_parser_is_available(parser)) continue;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            mapping_context *ctx = NULL;
            EXPECT_OK(NULL, mapping_context_new(values_spec, MAPPING_NUL_TERMINATED, &ctx));
            EXPECT_OK(ctx, mapping_context_set_parser(ctx, parser));
            EXPECT_RC(ctx, MAPPING_EPARSE, mapping_context_import(ctx, "t", cases[i].text, cases[i].len, NULL));
            EXPECT(mapping_error_last(ctx)->position == cases[i].position);
            EXPECT(strstr(mapping_error_message(ctx), cases[i].words) != NULL);
            if (i == 0) {  /* an array: chunked alike */
                EXPECT_RC(ctx, MAPPING_EPARSE, mapping_context_import_chunked(ctx, "t", cases[i].text, cases[i].len,
                                                                             MAPPING_CHUNKS_ARRAY, 1, NULL, NULL));
                EXPECT(mapping_error_last(ctx)->position == cases[i].position);
            }
            mapping_context_free(ctx);
        }
    }
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
    test_exact_dates();
    test_negative_zero_through_a_store();
    test_nul_bytes_and_positions();
    test_chunked_failure_inside_a_transaction();
    test_the_earliest_malformation_is_reported();
    return harness_finish("c defects");
}
