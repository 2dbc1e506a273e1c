/* Errors from the C API: parse errors with line and column, type errors with JSON path and
 * attribute, all-or-nothing imports, and misuse that must never crash the host. */
#include "harness.h"

static const char *dir;

/* The whole graph as JSON text, to compare before and after a failed import. */
static char *snapshot(mapping_context *ctx) {
    mapping_list *people = NULL, *companies = NULL;
    char *a = NULL, *b = NULL;
    mapping_entity_all(ctx, "Person", &people);
    mapping_entity_all(ctx, "Company", &companies);
    mapping_list_serialize(ctx, "person", people, MAPPING_SERIALIZE_NULLS, &a);
    mapping_list_serialize(ctx, "company", companies, MAPPING_SERIALIZE_NULLS, &b);
    size_t length = (a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 2;
    char *both = malloc(length);
    snprintf(both, length, "%s|%s", a ? a : "", b ? b : "");
    mapping_free(a);
    mapping_free(b);
    mapping_list_free(people);
    mapping_list_free(companies);
    return both;
}

static void test_parse_and_type_errors_change_nothing(void) {
    mapping_context *ctx = harness_context(dir, "people.spec.json");
    char *payload = harness_read(dir, "people.json");
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", payload, MAPPING_NUL_TERMINATED, NULL));
    free(payload);
    char *before = snapshot(ctx);

    mapping_list *out = (mapping_list *)1;
    EXPECT_RC(ctx, MAPPING_EPARSE, mapping_context_import(ctx, "person", "{\"data\": {\"people\": [\n {\"id\": 5,,}]}}",
                                                  MAPPING_NUL_TERMINATED, &out));
    EXPECT(out == NULL);
    const mapping_error *error = mapping_error_last(ctx);
    EXPECT(error->code == MAPPING_EPARSE);
    EXPECT(error->line == 2);
    EXPECT(error->column == 11);
    EXPECT(error->position == 32);  /* the 0-based offset of the second comma */
    EXPECT(strstr(mapping_error_message(ctx), "line 2, column 11") != NULL);

    /* The first representations change the graph before the bad one fails: all are undone. */
    const char *bad =
        "{\"data\": {\"people\": ["
        "{\"id\": 1, \"name\": \"changed\", \"company\": {\"id\": 99, \"name\": \"new\"}, \"phones\": []},"
        "{\"id\": 50, \"name\": \"new person\"},"
        "{\"id\": 2, \"age\": \"abc\"}]}}";
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_context_import(ctx, "person", bad, MAPPING_NUL_TERMINATED, NULL));
    error = mapping_error_last(ctx);
    EXPECT_STR(error->path, "$.data.people[2].age");
    EXPECT_STR(error->attribute, "Person.age");
    EXPECT(strstr(error->message, "\"abc\" is not an integer") != NULL);

    /* Nested: a type error inside a nested relationship names the nested path. */
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_context_import(ctx, "person",
              "{\"data\":{\"people\":[{\"id\":1,\"phones\":[{\"number\":\"1\"},{\"number\":[]}]}]}}",
              MAPPING_NUL_TERMINATED, NULL));
    EXPECT_STR(mapping_error_last(ctx)->path, "$.data.people[0].phones[1].number");
    EXPECT_STR(mapping_error_last(ctx)->attribute, "Phone.number");

    EXPECT_RC(ctx, MAPPING_EMAPPING, mapping_context_import(ctx, "person", "{\"people\": []}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_context_import(ctx, "person", "{\"data\": {\"people\": [1]}}",
                                                 MAPPING_NUL_TERMINATED, NULL));
    EXPECT_RC(ctx, MAPPING_ERANGE, mapping_context_import(ctx, "person", "{\"data\": {\"people\": [{\"id\": 1e30}]}}",
                                                  MAPPING_NUL_TERMINATED, NULL));

    char *after = snapshot(ctx);
    EXPECT_STR(after, before);
    size_t count = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Person", &count));
    EXPECT(count == 2);
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Company", &count));
    EXPECT(count == 2);
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Phone", &count));
    EXPECT(count == 3);
    EXPECT(mapping_error_last(ctx)->code == MAPPING_OK);  /* the last call succeeded */
    free(before);
    free(after);
    mapping_context_free(ctx);
}

static void test_deep_nesting_is_an_error_not_a_crash(void) {
    mapping_context *ctx = NULL;
    const char *spec = "{\"entities\": {\"Node\": {\"attributes\": {\"id\": \"integer\"},"
                       " \"relationships\": {\"child\": {\"entity\": \"Node\"}}}},"
                       " \"mappings\": {\"node\": {\"entity\": \"Node\", \"attributes\": {\"id\": \"id\"},"
                       " \"relationships\": {\"child\": {\"mapping\": \"node\"}}}}}";
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    enum { depth = 1000 };
    char *payload = malloc(depth * 24 + 16);
    size_t at = 0;
    for (int i = 0; i < depth; i++) at += (size_t)sprintf(payload + at, "{\"id\":%d,\"child\":", i);
    at += (size_t)sprintf(payload + at, "null");
    for (int i = 0; i < depth; i++) payload[at++] = '}';
    payload[at] = '\0';
    EXPECT_RC(ctx, MAPPING_EDEPTH, mapping_context_import(ctx, "node", payload, at, NULL));
    size_t count = 1;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Node", &count));
    EXPECT(count == 0);
    free(payload);
    mapping_context_free(ctx);
}

static void test_spec_errors_name_the_place(void) {
    mapping_context *ctx = (mapping_context *)1;
    EXPECT_RC(NULL, MAPPING_ESPEC, mapping_context_new("{\"entities\": {\"A\": {\"attributes\": "
              "{\"x\": \"string\"}, \"relationships\": {\"b\": {\"entity\": \"B\", \"inverse\": \"a\"}}},"
              " \"B\": {\"relationships\": {\"a\": {\"entity\": \"B\"}}}}, \"mappings\": {\"a\": {\"entity\": \"A\"}}}",
              MAPPING_NUL_TERMINATED, &ctx));
    EXPECT(ctx == NULL);
    EXPECT_STR(mapping_error_last(NULL)->path, "$.entities.A.relationships.b.inverse");
    EXPECT_RC(NULL, MAPPING_ESPEC, mapping_context_new("{\"entities\": {}", MAPPING_NUL_TERMINATED, &ctx));
    EXPECT(mapping_error_last(NULL)->line == 1);
    EXPECT_RC(NULL, MAPPING_ESPEC, mapping_context_new("{\"entities\": {\"A\": {}}, \"mappings\": "
              "{\"a\": {\"entity\": \"A\", \"attributes\": {\"nope\": \"x\"}}}}", MAPPING_NUL_TERMINATED, &ctx));
    EXPECT_STR(mapping_error_last(NULL)->path, "$.mappings.a.attributes.nope");
}

static void test_misuse_never_crashes(void) {
    mapping_context *ctx = harness_context(dir, "people.spec.json");
    mapping_context *other = harness_context(dir, "people.spec.json");
    mapping_list *list = NULL;
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", "{\"data\":{\"people\":[{\"id\":1,\"name\":\"A\"}]}}",
                                  MAPPING_NUL_TERMINATED, &list));
    mapping_object object = MAPPING_NO_OBJECT, foreign = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_list_at(list, 0, &object));
    EXPECT_OK(other, mapping_context_import(other, "person", "{\"data\":{\"people\":[{\"id\":1}]}}",
                                    MAPPING_NUL_TERMINATED, NULL));
    EXPECT_OK(other, mapping_entity_find(other, "Person", "1", &foreign));
    const char *text = NULL;
    int64_t number = 0;

    /* NULL arguments. */
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_context_import(NULL, "person", "{}", 2, NULL));
    EXPECT(strstr(mapping_error_message(NULL), "NULL") != NULL);
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_import(ctx, NULL, "{}", 2, NULL));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_import(ctx, "person", NULL, 2, NULL));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_object_get_string(ctx, object, NULL, &text, NULL));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_object_get_string(ctx, object, "name", NULL, NULL));
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_context_new("{}", 2, NULL));
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_list_at(NULL, 0, &(mapping_object){0}));
    EXPECT(mapping_list_count(NULL) == 0);
    mapping_context_free(NULL);
    mapping_list_free(NULL);
    mapping_free(NULL);

    /* Unknown names, wrong getters, nulls, bad indexes. */
    EXPECT_RC(ctx, MAPPING_ENAME, mapping_context_import(ctx, "nobody", "{}", 2, NULL));
    EXPECT_RC(ctx, MAPPING_ENAME, mapping_object_get_string(ctx, object, "nickname", &text, NULL));
    EXPECT_RC(ctx, MAPPING_ENAME, mapping_entity_count(ctx, "Martian", &(size_t){0}));
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_object_get_int64(ctx, object, "name", &number));
    EXPECT(strstr(mapping_error_message(ctx), "mapping_object_get_string") != NULL);
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_object_related(ctx, object, "phones", &(mapping_object){0}));
    EXPECT_RC(ctx, MAPPING_ENULL, mapping_object_get_int64(ctx, object, "age", &number));
    EXPECT_RC(ctx, MAPPING_ERANGE, mapping_list_at(list, 1, &object));
    EXPECT(object == MAPPING_NO_OBJECT);
    EXPECT_OK(ctx, mapping_list_at(list, 0, &object));
    EXPECT_RC(ctx, MAPPING_ERANGE, mapping_list_at(list, (size_t)-1, &object));
    EXPECT_OK(ctx, mapping_list_at(list, 0, &object));
    EXPECT_RC(ctx, MAPPING_EPARSE, mapping_entity_find(ctx, "Person", "{oops", &(mapping_object){0}));
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_entity_find(ctx, "Person", "\"abc\"", &(mapping_object){0}));

    /* Stale and foreign handles. */
    EXPECT_RC(ctx, MAPPING_ESTALE, mapping_object_get_string(ctx, foreign, "name", &text, NULL));
    EXPECT_RC(ctx, MAPPING_ESTALE, mapping_object_check(ctx, foreign));
    EXPECT_RC(ctx, MAPPING_ESTALE, mapping_object_entity(ctx, 12345, &text));
    EXPECT_RC(ctx, MAPPING_ESTALE, mapping_object_get_string(ctx, MAPPING_NO_OBJECT, "name", &text, NULL));
    EXPECT_OK(ctx, mapping_object_check(ctx, object));

    /* Freed handles: lists and contexts. */
    mapping_list_free(list);
    EXPECT(mapping_list_count(list) == 0);
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_list_at(list, 0, &object));
    mapping_list_free(list);  /* twice: a no-op */
    mapping_context_free(other);
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_entity_count(other, "Person", &(size_t){0}));
    EXPECT(strstr(mapping_error_message(NULL), "freed") != NULL);
    mapping_context_free(other);

    /* Introspection. */
    size_t count = 0;
    const char *name = NULL;
    int type = 0;
    bool many = false;
    EXPECT_OK(ctx, mapping_entity_attribute_count(ctx, "Person", &count));
    EXPECT(count == 9);
    EXPECT_OK(ctx, mapping_entity_attribute_name(ctx, "Person", 8, &name));
    EXPECT_STR(name, "city");
    EXPECT_RC(ctx, MAPPING_ERANGE, mapping_entity_attribute_name(ctx, "Person", 9, &name));
    EXPECT_OK(ctx, mapping_entity_relationship_count(ctx, "Person", &count));
    EXPECT(count == 2);
    EXPECT_OK(ctx, mapping_entity_relationship_name(ctx, "Person", 1, &name));
    EXPECT_STR(name, "phones");
    EXPECT_OK(ctx, mapping_entity_relationship_is_to_many(ctx, "Person", "phones", &many));
    EXPECT(many);
    EXPECT_OK(ctx, mapping_entity_attribute_type(ctx, "Person", "weight", &type));
    EXPECT(type == MAPPING_TYPE_DECIMAL);
    EXPECT_OK(ctx, mapping_entity_identification_count(ctx, "Person", &count));
    EXPECT(count == 1);
    EXPECT_OK(ctx, mapping_entity_identification_name(ctx, "Person", 0, &name));
    EXPECT_STR(name, "id");
    EXPECT_OK(ctx, mapping_entity_identification_name(ctx, "Phone", 0, &name));
    EXPECT_STR(name, "number");
    EXPECT_RC(ctx, MAPPING_ERANGE, mapping_entity_identification_name(ctx, "Person", 1, &name));
    EXPECT_RC(ctx, MAPPING_ENAME, mapping_entity_identification_count(ctx, "Nobody", &count));

    /* Versions and names. */
    EXPECT(mapping_version_number() == MAPPING_VERSION_NUMBER);
    EXPECT_STR(mapping_version(), MAPPING_VERSION_STRING);
    EXPECT_STR(mapping_error_name(MAPPING_ESTALE), "MAPPING_ESTALE");
    EXPECT_STR(mapping_error_name(-99), "MAPPING_E?");
    mapping_context_free(ctx);
}

int main(int argc, char **argv) {
    dir = argc > 1 ? argv[1] : "Tests/fixtures";
    test_parse_and_type_errors_change_nothing();
    test_deep_nesting_is_an_error_not_a_crash();
    test_spec_errors_name_the_place();
    test_misuse_never_crashes();
    return harness_finish("c errors");
}
