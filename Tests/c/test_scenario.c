/* The spine's scenario from the C API alone: uniquing within and across payloads, last values,
 * every attribute type, both directions of every relationship, updates in place, and a
 * serialization that gives the input's shape back (compared structurally with jansson). */
#include <jansson.h>
#include <math.h>

#include "harness.h"

static const char *dir;

static mapping_object person(mapping_context *ctx, const char *id) {
    mapping_object found = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", id, &found));
    return found;
}

static void test_one_object_per_identity(void) {
    mapping_context *ctx = harness_context(dir, "people.spec.json");
    char *payload = harness_read(dir, "people.json");
    mapping_list *top = NULL;
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", payload, strlen(payload), &top));
    free(payload);

    EXPECT(mapping_list_count(top) == 3);
    mapping_object first, second, third;
    EXPECT_OK(ctx, mapping_list_at(top, 0, &first));
    EXPECT_OK(ctx, mapping_list_at(top, 1, &second));
    EXPECT_OK(ctx, mapping_list_at(top, 2, &third));
    EXPECT(first == third);  /* "1" and 1 are one identity */
    EXPECT(first != second);

    size_t count = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Person", &count));
    EXPECT(count == 2);
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Company", &count));
    EXPECT(count == 2);
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Phone", &count));
    EXPECT(count == 3);

    /* Last values win; keys missing from the later representation keep their values. */
    const char *text = NULL;
    size_t length = 0;
    EXPECT_OK(ctx, mapping_object_get_string(ctx, first, "name", &text, &length));
    EXPECT_STR(text, "Ada Lovelace");
    EXPECT(length == 12);
    int64_t age = 0;
    EXPECT_OK(ctx, mapping_object_get_int64(ctx, first, "age", &age));
    EXPECT(age == 36);  /* "36" coerced */
    double score = 0;
    EXPECT_OK(ctx, mapping_object_get_double(ctx, first, "score", &score));
    EXPECT(score == 9.5);
    EXPECT_OK(ctx, mapping_object_get_double(ctx, second, "score", &score));
    EXPECT(score == 7.0);  /* "7" coerced */
    EXPECT_OK(ctx, mapping_object_get_decimal(ctx, first, "weight", &text));
    EXPECT_STR(text, "61.25");
    bool flag = false;
    EXPECT_OK(ctx, mapping_object_get_bool(ctx, first, "active", &flag));
    EXPECT(flag);  /* "yes" */
    double born = 0;
    EXPECT_OK(ctx, mapping_object_get_date(ctx, first, "born", &born));
    EXPECT(born == -4861728000.0);  /* 1815-12-10T00:00:00Z */
    EXPECT_OK(ctx, mapping_object_get_date(ctx, second, "born", &born));
    EXPECT(born == 1.0);  /* epoch seconds */
    EXPECT_OK(ctx, mapping_object_get_string(ctx, first, "city", &text, NULL));
    EXPECT_STR(text, "London");  /* from the nested key path address.city */
    char *json = NULL;
    EXPECT_OK(ctx, mapping_object_get_json(ctx, first, "tags", &json));
    EXPECT_STR(json, "[\"math\",{\"engines\":2}]");
    mapping_free(json);
    EXPECT_OK(ctx, mapping_object_get_json(ctx, first, "born", &json));
    EXPECT_STR(json, "\"1815-12-10T00:00:00.000Z\"");
    mapping_free(json);
    EXPECT_RC(ctx, MAPPING_ENULL, mapping_object_get_decimal(ctx, second, "weight", &text));
    EXPECT(text == NULL);
    EXPECT_OK(ctx, mapping_object_is_null(ctx, second, "weight", &flag));
    EXPECT(flag);
    EXPECT_OK(ctx, mapping_object_get_json(ctx, second, "weight", &json));
    EXPECT_STR(json, "null");
    mapping_free(json);

    /* Relationships and their inverses: Ada moved from company 10 to 11. */
    mapping_object company = MAPPING_NO_OBJECT, c10 = MAPPING_NO_OBJECT, back = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_object_related(ctx, first, "company", &company));
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Company", "11", &back));
    EXPECT(company == back);
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Company", "\"10\"", &c10));
    EXPECT_OK(ctx, mapping_object_get_string(ctx, c10, "name", &text, NULL));
    EXPECT_STR(text, "Analytical Engines Ltd");
    mapping_list *employees = NULL;
    EXPECT_OK(ctx, mapping_object_related_list(ctx, c10, "employees", &employees));
    EXPECT(mapping_list_count(employees) == 1);
    mapping_object employee = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_list_at(employees, 0, &employee));
    EXPECT(employee == second);
    mapping_list_free(employees);

    mapping_list *phones = NULL;
    EXPECT_OK(ctx, mapping_object_related_list(ctx, first, "phones", &phones));
    EXPECT(mapping_list_count(phones) == 2);
    mapping_object phone = MAPPING_NO_OBJECT, owner = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_list_at(phones, 1, &phone));
    EXPECT_OK(ctx, mapping_object_get_string(ctx, phone, "number", &text, NULL));
    EXPECT_STR(text, "+44-2");
    EXPECT_OK(ctx, mapping_object_related(ctx, phone, "owner", &owner));
    EXPECT(owner == first);
    const char *entity = NULL;
    EXPECT_OK(ctx, mapping_object_entity(ctx, phone, &entity));
    EXPECT_STR(entity, "Phone");
    mapping_list_free(phones);

    /* Re-import: updates in place, no duplicates, inverses follow. */
    payload = harness_read(dir, "people_update.json");
    mapping_list *updated = NULL;
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", payload, MAPPING_NUL_TERMINATED, &updated));
    free(payload);
    mapping_object grace = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_list_at(updated, 0, &grace));
    EXPECT(grace == second);
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Person", &count));
    EXPECT(count == 3);
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Company", &count));
    EXPECT(count == 2);
    EXPECT_OK(ctx, mapping_object_get_string(ctx, grace, "name", &text, NULL));
    EXPECT_STR(text, "Grace Hopper");
    EXPECT_OK(ctx, mapping_object_get_int64(ctx, grace, "age", &age));
    EXPECT(age == 86);
    EXPECT_OK(ctx, mapping_object_related(ctx, grace, "company", &company));
    EXPECT(company == back);
    EXPECT_OK(ctx, mapping_object_get_string(ctx, back, "name", &text, NULL));
    EXPECT_STR(text, "Difference");  /* {"id": 11} alone leaves the name as it was */
    EXPECT_OK(ctx, mapping_object_related_list(ctx, back, "employees", &employees));
    EXPECT(mapping_list_count(employees) == 2);
    mapping_list_free(employees);
    EXPECT_OK(ctx, mapping_object_related_list(ctx, c10, "employees", &employees));
    EXPECT(mapping_list_count(employees) == 1);  /* Linus joined, Grace left */
    mapping_list_free(employees);
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Phone", "\"+1-555\"", &phone));
    EXPECT_OK(ctx, mapping_object_related(ctx, phone, "owner", &owner));
    EXPECT(owner == MAPPING_NO_OBJECT);  /* phones: [] released it */
    EXPECT_RC(ctx, MAPPING_ENOTFOUND, mapping_entity_find(ctx, "Person", "99", &owner));
    EXPECT(owner == MAPPING_NO_OBJECT);
    (void)person;

    mapping_list_free(updated);
    mapping_list_free(top);
    mapping_context_free(ctx);
}

static void test_serialization_gives_the_input_shape_back(void) {
    mapping_context *ctx = harness_context(dir, "people.spec.json");
    char *payload = harness_read(dir, "people_roundtrip.json");
    mapping_list *top = NULL;
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", payload, MAPPING_NUL_TERMINATED, &top));
    char *out = NULL;
    EXPECT_OK(ctx, mapping_list_serialize(ctx, "person", top, 0, &out));
    json_error_t error;
    json_t *expected = json_loads(payload, 0, &error);
    json_t *actual = out ? json_loads(out, 0, &error) : NULL;
    EXPECT(expected != NULL && actual != NULL);
    EXPECT(json_equal(expected, actual));
    if (actual && !json_equal(expected, actual)) fprintf(stderr, "serialized: %s\n", out);
    json_decref(expected);
    json_decref(actual);
    mapping_free(out);

    /* One object, without the rootPath wrapper, with nulls. */
    mapping_object kim = person(ctx, "8");
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_object_serialize(ctx, "company", kim, 0, &out));  /* a Person through the company mapping */
    EXPECT(out == NULL);
    mapping_free(out);
    out = NULL;
    mapping_object company = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_object_related(ctx, kim, "company", &company));
    EXPECT_OK(ctx, mapping_object_serialize(ctx, "company", company, MAPPING_SERIALIZE_NULLS, &out));
    EXPECT_STR(out, "{\"id\":4,\"name\":\"D\"}");
    mapping_free(out);
    free(payload);
    mapping_list_free(top);
    mapping_context_free(ctx);
}

int main(int argc, char **argv) {
    dir = argc > 1 ? argv[1] : "Tests/fixtures";
    test_one_object_per_identity();
    test_serialization_gives_the_input_shape_back();
    return harness_finish("c scenario");
}
