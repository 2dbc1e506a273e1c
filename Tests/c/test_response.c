/* mapping_response_map from C: a GET with orphan deletion (version-2 struct), a caller compiled
 * against the version-1 struct (no orphan fields), an unknown version, NULL, a missing status, an
 * error status, and the *_init functions bindings use instead of the *_INIT macros. */
#include "harness.h"

static const char *spec =
    "{\"entities\": {\"User\": {\"attributes\": {\"id\": \"integer\", \"name\": \"string\"}}},"
    " \"mappings\": {\"user\": {\"entity\": \"User\", \"attributes\": {\"id\": \"id\", \"name\": \"name\"}}},"
    " \"responseDescriptors\": [{\"mapping\": \"user\", \"method\": \"GET\", \"pathPattern\": \"users\", \"keyPath\": \"users\"},"
    "  {\"mapping\": \"user\", \"method\": \"POST\", \"pathPattern\": \"users\", \"keyPath\": \"user\", \"statusCodes\": [201]},"
    "  {\"errorMessage\": \"message\", \"keyPath\": \"errors\"}]}";

/* The struct as version 1 of the header declared it: what an older caller passes. */
typedef struct {
    unsigned version;
    const char *method, *url;
    int status;
    const char *headers, *body;
    size_t body_len;
    const char *base_url;
} response_v1;

static size_t users(mapping_context *ctx) {
    size_t count = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "User", &count));
    return count;
}

static void test_get_deletes_orphans_of_the_scope(void) {
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    EXPECT_OK(ctx, mapping_context_import(ctx, "user", "[{\"id\": 1}, {\"id\": 2}, {\"id\": 3, \"name\": \"Keep\"}]",
                                  MAPPING_NUL_TERMINATED, NULL));
    mapping_response response = MAPPING_RESPONSE_INIT; /* method NULL: GET */
    response.status = 200;
    response.url = "https://api.example.com/v1/users";
    response.base_url = "https://api.example.com/v1/";
    response.body = "{\"users\": [{\"id\": 2, \"name\": \"Two\"}, {\"id\": 4, \"name\": \"Four\"}]}";
    response.body_len = MAPPING_NUL_TERMINATED;
    response.orphan_entity = "User";
    response.orphan_predicate = "name == nil OR name != 'Keep'";
    mapping_list *out = NULL;
    EXPECT_OK(ctx, mapping_response_map(ctx, &response, &out));
    EXPECT(mapping_list_count(out) == 2);
    mapping_list_free(out);
    /* 1 was in the scope and not in the response: deleted. 3 is outside the scope: kept. */
    EXPECT(users(ctx) == 3);
    mapping_object object = 0;
    EXPECT_RC(ctx, MAPPING_ENOTFOUND, mapping_entity_find(ctx, "User", "1", &object));
    EXPECT_OK(ctx, mapping_entity_find(ctx, "User", "3", &object));
    mapping_context_free(ctx);
}

static void test_a_version_1_struct_is_still_read(void) {
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    EXPECT_OK(ctx, mapping_context_import(ctx, "user", "[{\"id\": 1}]", MAPPING_NUL_TERMINATED, NULL));
    response_v1 old = {1, "GET", "https://api.example.com/v1/users", 200, NULL,
                       "{\"users\": [{\"id\": 2}]}", MAPPING_NUL_TERMINATED, "https://api.example.com/v1/"};
    EXPECT_OK(ctx, mapping_response_map(ctx, (const mapping_response *)(const void *)&old, NULL));
    EXPECT(users(ctx) == 2); /* no orphan fields in version 1: nothing deleted */
    mapping_context_free(ctx);
}

static void test_bad_calls_and_an_error_status(void) {
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    mapping_response response = MAPPING_RESPONSE_INIT;
    response.url = "https://api.example.com/v1/users";
    response.base_url = "https://api.example.com/v1/";
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_response_map(ctx, NULL, NULL));
    response.version = 99;
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_response_map(ctx, &response, NULL));
    EXPECT(strstr(mapping_error_message(ctx), "version 99") != NULL);
    response.version = MAPPING_RESPONSE_VERSION;
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_response_map(ctx, &response, NULL));
    EXPECT(strstr(mapping_error_message(ctx), "no status") != NULL);
    response.status = 422;
    response.body = "{\"errors\": [{\"message\": \"Name is taken.\"}]}";
    response.body_len = MAPPING_NUL_TERMINATED;
    response.orphan_entity = "User";
    EXPECT_OK(ctx, mapping_context_import(ctx, "user", "[{\"id\": 1}]", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_RC(ctx, MAPPING_ERESPONSE, mapping_response_map(ctx, &response, NULL));
    EXPECT(strstr(mapping_error_message(ctx), "Name is taken.") != NULL);
    EXPECT(users(ctx) == 1); /* an error response deletes no orphans */
    mapping_context_free(ctx);
}

static void test_post_maps_into_the_target(void) {
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    mapping_object eve = MAPPING_NO_OBJECT, found = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_object_create(ctx, "User", "{\"name\": \"Eve\"}", &eve));
    mapping_response response = MAPPING_RESPONSE_INIT;
    response.method = "POST";
    response.status = 201;
    response.url = "https://api.example.com/v1/users";
    response.base_url = "https://api.example.com/v1/";
    response.body = "{\"user\": {\"id\": 7, \"name\": \"Eve\"}}";
    response.body_len = MAPPING_NUL_TERMINATED;
    response.target = eve;
    mapping_list *out = NULL;
    EXPECT_OK(ctx, mapping_response_map(ctx, &response, &out));
    mapping_object mapped = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_list_at(out, 0, &mapped));
    EXPECT(mapped == eve);
    mapping_list_free(out);
    EXPECT_OK(ctx, mapping_entity_find(ctx, "User", "7", &found));
    EXPECT(found == eve && users(ctx) == 1);
    mapping_context_free(ctx);
}

/* The init functions zero exactly the fields of the version asked for and set the version. */
static void test_init_functions(void) {
    mapping_response response;
    memset(&response, 0xAB, sizeof response);
    EXPECT_OK(NULL, mapping_response_init(&response, MAPPING_RESPONSE_VERSION));
    EXPECT(response.version == MAPPING_RESPONSE_VERSION && response.method == NULL && response.status == 0);
    EXPECT(response.orphan_entity == NULL && response.target == MAPPING_NO_OBJECT);
    memset(&response, 0xAB, sizeof response);
    EXPECT_OK(NULL, mapping_response_init(&response, 1));
    EXPECT(response.version == 1 && response.base_url == NULL);
    EXPECT(((unsigned char *)&response.orphan_entity)[0] == 0xAB); /* past a version-1 struct: untouched */
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_response_init(&response, 3));
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_response_init(NULL, 2));

    mapping_import_options options;
    memset(&options, 0xAB, sizeof options);
    EXPECT_OK(NULL, mapping_import_options_init(&options, MAPPING_IMPORT_OPTIONS_VERSION));
    EXPECT(options.version == MAPPING_IMPORT_OPTIONS_VERSION && options.metadata == NULL && options.on_event == NULL);
    EXPECT(options.progress_interval == 0 && options.parser == MAPPING_PARSER_DEFAULT);
    memset(&options, 0xAB, sizeof options);
    EXPECT_OK(NULL, mapping_import_options_init(&options, 1));
    EXPECT(options.version == 1 && options.orphan_predicate == NULL);
    EXPECT(((unsigned char *)&options.parser)[0] == 0xAB);
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_import_options_init(&options, 0));
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_import_options_init(NULL, 2));
}

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    test_get_deletes_orphans_of_the_scope();
    test_a_version_1_struct_is_still_read();
    test_bad_calls_and_an_error_status();
    test_post_maps_into_the_target();
    test_init_functions();
    return harness_finish("c response");
}
