/* Host transformers from C: registered with a payload, applied on import (forward) and on
 * serialization (reverse), rejections reported with the JSON path, re-entrant calls refused. */
#include <ctype.h>

#include "harness.h"

static const char *SPEC =
    "{\"entities\": {\"User\": {\"attributes\": {\"id\": \"integer\", \"name\": \"string\", \"score\": \"integer\","
    " \"born\": \"date\", \"gender\": \"integer\", \"site\": \"string\", \"seen\": \"date\"}}},"
    " \"mappings\": {\"user\": {\"entity\": \"User\", \"attributes\": {\"id\": \"id\","
    "  \"name\": {\"keyPath\": \"name\", \"transformer\": \"shout\"},"
    "  \"score\": {\"keyPath\": \"score\", \"transformer\": \"negate\"},"
    "  \"born\": {\"keyPath\": \"born\", \"transformer\": \"date:dd/MM/yyyy\"},"
    "  \"gender\": {\"keyPath\": \"gender\", \"transformer\": {\"map\": {\"male\": 0, \"female\": 1}}},"
    "  \"site\": {\"keyPath\": \"site\", \"transformer\": \"url\"},"
    "  \"seen\": {\"keyPath\": \"seen\", \"transformer\": \"epochMillis\"}}}}}";

static int calls;
static mapping_context *ctx;

/* "shout": upper-cases a JSON string (no reverse: the name is left out of the output). */
static int shout(const char *input, size_t length, mapping_value *output, void *payload) {
    int *counter = payload;
    (*counter)++;
    if (length < 2 || input[0] != '"') {
        mapping_value_set_error(output, "shout takes a string");
        return 1;
    }
    char *copy = malloc(length + 1);
    for (size_t i = 0; i < length; i++) copy[i] = (char)toupper((unsigned char)input[i]);
    copy[length] = '\0';
    int rc = mapping_value_set_json(output, copy, length);
    free(copy);
    return rc;
}

/* "negate": KVCMapping's `opposite` (N19), its own reverse. */
static int negate(const char *input, size_t length, mapping_value *output, void *payload) {
    (void)payload;
    char text[64];
    long long value = 0;
    if (length >= sizeof text) return 1;
    memcpy(text, input, length);
    text[length] = '\0';
    if (sscanf(text, "%lld", &value) != 1) return 1;
    snprintf(text, sizeof text, "%lld", -value);
    return mapping_value_set_json(output, text, MAPPING_NUL_TERMINATED);
}

/* Calls back into the context it runs in: refused, and the refusal fails the import. */
static int reenter(const char *input, size_t length, mapping_value *output, void *payload) {
    (void)input, (void)length;
    size_t count = 0;
    int *seen = payload;
    *seen = mapping_entity_count(ctx, "User", &count);
    return mapping_value_set_json(output, "\"x\"", 3) == MAPPING_OK && *seen == MAPPING_OK ? 0 : 1;
}

int main(void) {
    EXPECT_OK(NULL, mapping_context_new(SPEC, MAPPING_NUL_TERMINATED, &ctx));
    /* An import that needs an unregistered transformer fails with its name. */
    EXPECT_RC(ctx, MAPPING_ENAME, mapping_context_import(ctx, "user", "{\"id\": 1, \"name\": \"ada\"}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT(strstr(mapping_error_message(ctx), "\"shout\" is not registered") != NULL);
    EXPECT_OK(ctx, mapping_context_register_transformer(ctx, "shout", shout, NULL, &calls));
    EXPECT_OK(ctx, mapping_context_register_transformer(ctx, "negate", negate, negate, NULL));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_register_transformer(ctx, "iso8601", negate, NULL, NULL));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_register_transformer(ctx, "x", NULL, NULL, NULL));

    mapping_list *users = NULL;
    EXPECT_OK(ctx, mapping_context_import(ctx, "user",
              "[{\"id\": 1, \"name\": \"ada\", \"score\": 123, \"born\": \"10/12/1815\", \"gender\": \"female\","
              "  \"site\": \"https://example.com/ada\", \"seen\": 1500000000123},"
              " {\"id\": 2, \"name\": null, \"gender\": \"male\"}]", MAPPING_NUL_TERMINATED, &users));
    EXPECT(calls == 1);  /* null is not transformed */
    mapping_object ada = 0, bob = 0;
    EXPECT_OK(ctx, mapping_list_at(users, 0, &ada));
    EXPECT_OK(ctx, mapping_list_at(users, 1, &bob));
    const char *text = NULL;
    int64_t number = 0;
    double seconds = 0;
    EXPECT_OK(ctx, mapping_object_get_string(ctx, ada, "name", &text, NULL));
    EXPECT_STR(text, "ADA");
    EXPECT_OK(ctx, mapping_object_get_int64(ctx, ada, "score", &number));
    EXPECT(number == -123);
    EXPECT_OK(ctx, mapping_object_get_date(ctx, ada, "born", &seconds));
    EXPECT(seconds == -4861728000.0);
    EXPECT_OK(ctx, mapping_object_get_int64(ctx, ada, "gender", &number));
    EXPECT(number == 1);
    EXPECT_OK(ctx, mapping_object_get_int64(ctx, bob, "gender", &number));
    EXPECT(number == 0);
    EXPECT_OK(ctx, mapping_object_get_date(ctx, ada, "seen", &seconds));
    EXPECT(seconds == 1500000000.123);

    /* Reverse: shout has none (left out), negate is its own, the built-ins write their form back. */
    char *json = NULL;
    EXPECT_OK(ctx, mapping_object_serialize(ctx, "user", ada, 0, &json));
    EXPECT_STR(json, "{\"id\":1,\"score\":123,\"born\":\"10/12/1815\",\"gender\":\"female\","
                     "\"site\":\"https://example.com/ada\",\"seen\":1500000000123}");
    mapping_free(json);

    /* Rejections: by the host (its message), by a built-in (the value), with the path; nothing changes. */
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_context_import(ctx, "user", "[{\"id\": 3, \"name\": \"x\"}, {\"id\": 4, \"name\": 5}]",
                                                 MAPPING_NUL_TERMINATED, NULL));
    EXPECT_STR(mapping_error_last(ctx)->path, "$[1].name");
    EXPECT(strstr(mapping_error_message(ctx), "shout takes a string") != NULL);
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_context_import(ctx, "user", "{\"id\": 5, \"gender\": \"other\"}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_STR(mapping_error_last(ctx)->attribute, "User.gender");
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_context_import(ctx, "user", "{\"id\": 5, \"born\": \"1815-12-10\"}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_context_import(ctx, "user", "{\"id\": 5, \"site\": \"not a url\"}", MAPPING_NUL_TERMINATED, NULL));
    size_t count = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "User", &count));
    EXPECT(count == 2);

    /* A transformer calling into its own context gets MAPPING_EMISUSE, and the import fails cleanly. */
    int seen = 0;
    EXPECT_OK(ctx, mapping_context_register_transformer(ctx, "shout", reenter, NULL, &seen));
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_context_import(ctx, "user", "{\"id\": 9, \"name\": \"z\"}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT(seen == MAPPING_EMISUSE);
    EXPECT_OK(ctx, mapping_entity_count(ctx, "User", &count));
    EXPECT(count == 2);
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_value_set_json(NULL, "1", 1));

    mapping_list_free(users);
    mapping_context_free(ctx);
    return harness_finish("c transformers");
}
