/* Changes and transactions from C: inverses on every change, delete rules (cascade with a cycle,
 * deny), counts checked at commit, transactions rolled back, ordered insert and move, orphans. */
#include "harness.h"

static const char *SPEC =
    "{\"entities\": {"
    " \"Person\": {\"attributes\": {\"id\": \"integer\", \"name\": \"string\"}, \"identification\": \"id\","
    "   \"relationships\": {\"company\": {\"entity\": \"Company\", \"inverse\": \"employees\"},"
    "     \"pets\": {\"entity\": \"Pet\", \"toMany\": true, \"ordered\": true, \"inverse\": \"owner\", \"deleteRule\": \"cascade\", \"maxCount\": 3}}},"
    " \"Company\": {\"attributes\": {\"id\": \"integer\"}, \"identification\": \"id\","
    "   \"relationships\": {\"employees\": {\"entity\": \"Person\", \"toMany\": true, \"inverse\": \"company\", \"deleteRule\": \"deny\"}}},"
    " \"Pet\": {\"attributes\": {\"name\": \"string\"}, \"identification\": \"name\","
    "   \"relationships\": {\"owner\": {\"entity\": \"Person\", \"inverse\": \"pets\", \"deleteRule\": \"cascade\"}}}},"
    " \"mappings\": {\"person\": {\"entity\": \"Person\", \"attributes\": {\"id\": \"id\", \"name\": \"name\"},"
    "   \"relationships\": {\"pets\": {\"mapping\": \"pet\"}}},"
    "  \"pet\": {\"entity\": \"Pet\", \"attributes\": {\"name\": null}}}}";

static size_t count(mapping_context *ctx, const char *entity) {
    size_t total = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, entity, &total));
    return total;
}

static const char *name_at(mapping_context *ctx, mapping_object owner, size_t index) {
    mapping_list *pets = NULL;
    mapping_object pet = 0;
    const char *name = "?";
    if (mapping_object_related_list(ctx, owner, "pets", &pets) == MAPPING_OK && mapping_list_at(pets, index, &pet) == MAPPING_OK) {
        mapping_object_get_string(ctx, pet, "name", &name, NULL);
    }
    mapping_list_free(pets);
    return name;
}

int main(void) {
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(SPEC, MAPPING_NUL_TERMINATED, &ctx));
    mapping_object ada = 0, acme = 0, rex = 0, owner = 0;
    EXPECT_OK(ctx, mapping_object_create(ctx, "Person", "{\"id\": 1, \"name\": \"Ada\"}", &ada));
    EXPECT_OK(ctx, mapping_object_create(ctx, "Company", "{\"id\": \"10\"}", &acme));
    EXPECT_RC(ctx, MAPPING_ECONSTRAINT, mapping_object_create(ctx, "Person", "{\"id\": 1}", &owner));

    /* Inverses: set, add, remove. */
    EXPECT_OK(ctx, mapping_object_set_related(ctx, ada, "company", acme));
    mapping_list *employees = NULL;
    EXPECT_OK(ctx, mapping_object_related_list(ctx, acme, "employees", &employees));
    EXPECT(mapping_list_count(employees) == 1);
    mapping_list_free(employees);
    EXPECT_OK(ctx, mapping_object_create(ctx, "Pet", "{\"name\": \"rex\"}", &rex));
    EXPECT_OK(ctx, mapping_object_add_related(ctx, ada, "pets", rex, MAPPING_APPEND));
    EXPECT_OK(ctx, mapping_object_related(ctx, rex, "owner", &owner));
    EXPECT(owner == ada);
    EXPECT_OK(ctx, mapping_object_remove_related(ctx, ada, "pets", rex));
    EXPECT_OK(ctx, mapping_object_related(ctx, rex, "owner", &owner));
    EXPECT(owner == MAPPING_NO_OBJECT);
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_object_set_related(ctx, ada, "company", rex));
    EXPECT_OK(ctx, mapping_object_set(ctx, ada, "name", "\"Ada L.\""));
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_object_set(ctx, ada, "id", "\"x\""));
    EXPECT_RC(ctx, MAPPING_EPARSE, mapping_object_set(ctx, ada, "name", "not json"));

    /* Ordered insert and move. */
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", "{\"id\": 1, \"pets\": [\"a\", \"b\"]}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_OK(ctx, mapping_object_add_related(ctx, ada, "pets", rex, 1));
    EXPECT_STR(name_at(ctx, ada, 1), "rex");
    EXPECT_OK(ctx, mapping_object_move_related(ctx, ada, "pets", 0, 2));
    EXPECT_STR(name_at(ctx, ada, 2), "a");
    EXPECT_RC(ctx, MAPPING_ERANGE, mapping_object_move_related(ctx, ada, "pets", 0, 7));

    /* maxCount 3: a fourth pet is refused, nothing changes. */
    mapping_object dot = 0;
    EXPECT_OK(ctx, mapping_object_create(ctx, "Pet", "{\"name\": \"dot\"}", &dot));
    EXPECT_RC(ctx, MAPPING_ECONSTRAINT, mapping_object_add_related(ctx, ada, "pets", dot, MAPPING_APPEND));
    EXPECT(strstr(mapping_error_message(ctx), "maxCount 3") != NULL);
    EXPECT_STR(mapping_error_last(ctx)->attribute, "Person.pets");

    /* A transaction rolled back from C: everything since begin is undone. */
    EXPECT_OK(ctx, mapping_context_begin(ctx));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_begin(ctx));
    EXPECT_OK(ctx, mapping_object_set(ctx, ada, "name", "\"changed\""));
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", "[{\"id\": 2}, {\"id\": 3}]", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_OK(ctx, mapping_object_delete(ctx, rex));  /* Pet.owner cascades: Ada goes too, and her pets */
    EXPECT(count(ctx, "Person") == 2);
    EXPECT_OK(ctx, mapping_context_rollback(ctx));
    EXPECT(count(ctx, "Person") == 1);
    EXPECT_OK(ctx, mapping_object_check(ctx, rex));
    const char *name = NULL;
    EXPECT_OK(ctx, mapping_object_get_string(ctx, ada, "name", &name, NULL));
    EXPECT_STR(name, "Ada L.");
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_commit(ctx));

    /* Counts at commit: the violation rolls the transaction back. */
    EXPECT_OK(ctx, mapping_context_begin(ctx));
    EXPECT_OK(ctx, mapping_object_add_related(ctx, ada, "pets", dot, MAPPING_APPEND));
    EXPECT_RC(ctx, MAPPING_ECONSTRAINT, mapping_context_commit(ctx));
    EXPECT_OK(ctx, mapping_object_related(ctx, dot, "owner", &owner));
    EXPECT(owner == MAPPING_NO_OBJECT);

    /* Deny keeps everything; cascade through a cycle (pets <-> owner both cascade) deletes the lot. */
    EXPECT_RC(ctx, MAPPING_EDENIED, mapping_object_delete(ctx, acme));
    EXPECT_OK(ctx, mapping_object_check(ctx, acme));
    EXPECT(count(ctx, "Person") == 1);
    EXPECT_OK(ctx, mapping_object_set_related(ctx, ada, "company", MAPPING_NO_OBJECT));
    EXPECT_OK(ctx, mapping_object_delete(ctx, ada));
    EXPECT(count(ctx, "Pet") == 1);  /* only dot, which had no owner */
    EXPECT(count(ctx, "Person") == 0);
    EXPECT_RC(ctx, MAPPING_ESTALE, mapping_object_delete(ctx, ada));
    EXPECT_OK(ctx, mapping_object_delete(ctx, acme));

    /* Orphans: the import's scope loses what the import did not touch. */
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", "[{\"id\": 1}, {\"id\": 2}]", MAPPING_NUL_TERMINATED, NULL));
    mapping_import_options options = MAPPING_IMPORT_OPTIONS_INIT;
    options.orphan_entity = "Person";
    options.orphan_predicate = "id > 0";
    const char *mappings[] = {"person"};
    EXPECT_OK(ctx, mapping_context_import_with(ctx, mappings, 1, "[{\"id\": 2}]", MAPPING_NUL_TERMINATED, &options, NULL));
    EXPECT(count(ctx, "Person") == 1);
    options.orphan_predicate = "nope == 1";
    EXPECT_RC(ctx, MAPPING_EPREDICATE, mapping_context_import_with(ctx, mappings, 1, "[]", 2, &options, NULL));
    EXPECT(count(ctx, "Person") == 1);

    /* Fetch from C, with and without sub-entities. */
    mapping_list *found = NULL;
    EXPECT_OK(ctx, mapping_entity_fetch(ctx, "Person", "id == %@", "[2]", NULL, 0, 0, 0, &found));
    EXPECT(mapping_list_count(found) == 1);
    mapping_list_free(found);
    EXPECT_RC(ctx, MAPPING_EPREDICATE, mapping_entity_fetch(ctx, "Person", "id ==", NULL, NULL, 0, 0, 0, &found));
    EXPECT(mapping_error_last(ctx)->column == 6);
    mapping_context_free(ctx);
    return harness_finish("c changes");
}
