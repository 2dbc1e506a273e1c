/* Strings read from the graph are the graph's own bytes: the natural C code (read two attributes,
 * then print both) works, a string stays readable while other calls run, and it is NUL-terminated
 * with the length given beside it. */
#include "harness.h"

static const char *spec =
    "{\"entities\": {\"Person\": {\"identification\": [\"id\"], \"attributes\": {\"id\": \"integer\", \"name\": \"string\","
    " \"city\": \"string\", \"bio\": \"string\"}}},"
    " \"mappings\": {\"person\": {\"entity\": \"Person\", \"attributes\": {\"id\": \"id\", \"name\": \"name\", \"city\": \"city\","
    " \"bio\": \"bio\"}}}}";

static const char *people =
    "[{\"id\": 1, \"name\": \"Ada Lovelace\", \"city\": \"London\", \"bio\": \"Wrote the first program for the Analytical"
    " Engine, a machine that was never finished in her lifetime; she saw that it could do more than arithmetic.\"},"
    " {\"id\": 2, \"name\": \"Grace\", \"city\": \"London\", \"bio\": \"\"}]";

static mapping_object person(mapping_context *ctx, const char *id) {
    mapping_object object = 0;
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", id, &object));
    return object;
}

static void test_two_getters_then_one_printf(void) {
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", people, MAPPING_NUL_TERMINATED, NULL));
    mapping_object ada = person(ctx, "1"), grace = person(ctx, "2");
    const char *name = NULL, *city = NULL, *bio = NULL, *other = NULL;
    size_t name_len = 0, bio_len = 0;
    EXPECT_OK(ctx, mapping_object_get_string(ctx, ada, "name", &name, &name_len));
    EXPECT_OK(ctx, mapping_object_get_string(ctx, ada, "city", &city, NULL));
    EXPECT_OK(ctx, mapping_object_get_string(ctx, ada, "bio", &bio, &bio_len));
    EXPECT_OK(ctx, mapping_object_get_string(ctx, grace, "name", &other, NULL));
    char line[512];
    snprintf(line, sizeof line, "%s of %s; %s", name, city, other);
    EXPECT_STR(line, "Ada Lovelace of London; Grace");
    EXPECT(name_len == 12 && name[name_len] == '\0');
    EXPECT(bio_len == strlen(bio) && bio_len > 100);
    /* The same city in two objects is stored once. */
    const char *grace_city = NULL;
    EXPECT_OK(ctx, mapping_object_get_string(ctx, grace, "city", &grace_city, NULL));
    EXPECT(grace_city == city);
    /* An empty string is a string, not null. */
    const char *empty = NULL;
    size_t empty_len = 99;
    EXPECT_OK(ctx, mapping_object_get_string(ctx, grace, "bio", &empty, &empty_len));
    EXPECT(empty != NULL && empty_len == 0 && empty[0] == '\0');
    mapping_context_free(ctx);
}

static void test_a_string_outlives_other_calls_and_changes_to_other_values(void) {
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", people, MAPPING_NUL_TERMINATED, NULL));
    mapping_object ada = person(ctx, "1");
    const char *name = NULL, *city = NULL;
    EXPECT_OK(ctx, mapping_object_get_string(ctx, ada, "name", &name, NULL));
    /* Many calls, a re-import that changes Ada's city and a failed import later, the name is intact. */
    for (int i = 0; i < 200; i++) {
        char json[128];
        snprintf(json, sizeof json, "{\"id\": %d, \"name\": \"Person number %d with a long name\"}", 100 + i, i);
        EXPECT_OK(ctx, mapping_context_import(ctx, "person", json, MAPPING_NUL_TERMINATED, NULL));
    }
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", "{\"id\": 1, \"city\": \"Paris\"}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_context_import(ctx, "person", "{\"id\": 1, \"name\": [1]}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_STR(name, "Ada Lovelace");
    EXPECT_OK(ctx, mapping_object_get_string(ctx, ada, "city", &city, NULL));
    EXPECT_STR(city, "Paris");
    /* A changed value is read anew; the old pointer is not promised, the new one is right. */
    EXPECT_OK(ctx, mapping_object_set(ctx, ada, "name", "\"Augusta Ada King\""));
    EXPECT_OK(ctx, mapping_object_get_string(ctx, ada, "name", &name, NULL));
    EXPECT_STR(name, "Augusta Ada King");
    /* A null string is MAPPING_ENULL with NULL out, as before. */
    EXPECT_OK(ctx, mapping_object_set(ctx, ada, "name", "null"));
    const char *none = "unchanged";
    EXPECT_RC(ctx, MAPPING_ENULL, mapping_object_get_string(ctx, ada, "name", &none, NULL));
    EXPECT(none == NULL);
    mapping_context_free(ctx);
}

static void test_strings_with_nul_bytes_keep_their_length(void) {
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", "{\"id\": 7, \"name\": \"a\\u0000b\"}", MAPPING_NUL_TERMINATED, NULL));
    const char *name = NULL;
    size_t length = 0;
    EXPECT_OK(ctx, mapping_object_get_string(ctx, person(ctx, "7"), "name", &name, &length));
    EXPECT(length == 3 && name[0] == 'a' && name[1] == '\0' && name[2] == 'b' && name[3] == '\0');
    mapping_context_free(ctx);
}

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    test_two_getters_then_one_printf();
    test_a_string_outlives_other_calls_and_changes_to_other_values();
    test_strings_with_nul_bytes_keep_their_length();
    return harness_finish("c strings");
}
