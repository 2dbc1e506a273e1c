/* The PostgreSQL store from C (run by Tests/postgres/run.sh against its throwaway server, whose URI
 * is in MAPPING_TEST_POSTGRES): two contexts on one schema see each other's commits through
 * mapping_context_refresh() and their observers; a conflicting commit is MAPPING_ECONFLICT and
 * changes nothing; a third context reads back the same graph. */
#include "../c/harness.h"

#include <unistd.h>

static char uri[1024];

static mapping_context *open_store(const char *spec, unsigned flags, int expected) {
    mapping_context *ctx = NULL;
    EXPECT_RC(NULL, expected, mapping_context_open(spec, MAPPING_NUL_TERMINATED, uri, flags, &ctx));
    return ctx;
}

static char *dump(mapping_context *ctx) {
    mapping_list *people = NULL;
    char *text = NULL;
    EXPECT_OK(ctx, mapping_entity_all(ctx, "Person", &people));
    EXPECT_OK(ctx, mapping_list_serialize(ctx, "person", people, MAPPING_SERIALIZE_NULLS, &text));
    mapping_list_free(people);
    return text;
}

static const char *name_of(mapping_context *ctx, const char *id) {
    mapping_object person = MAPPING_NO_OBJECT;
    const char *name = NULL;
    size_t length = 0;
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", id, &person));
    EXPECT_OK(ctx, mapping_object_get_string(ctx, person, "name", &name, &length));
    return name;
}

static int updates_seen;

static void observed(mapping_context *ctx, const mapping_changes *changes, void *payload) {
    (void)ctx;
    (void)payload;
    size_t count = 0;
    if (mapping_changes_count(changes, MAPPING_CHANGE_UPDATED, &count) == MAPPING_OK) updates_seen += (int)count;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "Tests/fixtures";
    const char *server = getenv("MAPPING_TEST_POSTGRES");
    if (!server) {
        fprintf(stderr, "test_postgres: MAPPING_TEST_POSTGRES names no server (make test-postgres starts one)\n");
        return 1;
    }
    snprintf(uri, sizeof uri, "%s&schema=c_test_%ld", server, (long)getpid());
    char *spec = harness_read(dir, "people.spec.json");
    char *payload = harness_read(dir, "people.json");

    /* Missing without CREATE; a malformed schema parameter is misuse. */
    EXPECT(open_store(spec, 0, MAPPING_ESTORE) == NULL);
    mapping_context *bad = NULL;
    char empty[1100];
    snprintf(empty, sizeof empty, "%s&schema=", server);
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_context_open(spec, MAPPING_NUL_TERMINATED, empty, MAPPING_OPEN_CREATE, &bad));
    EXPECT(bad == NULL);

    mapping_context *writer = open_store(spec, MAPPING_OPEN_CREATE, MAPPING_OK);
    EXPECT_OK(writer, mapping_context_import(writer, "person", payload, MAPPING_NUL_TERMINATED, NULL));
    mapping_context *reader = open_store(spec, 0, MAPPING_OK);
    uint64_t token = 0;
    EXPECT_OK(reader, mapping_context_observe(reader, observed, NULL, &token));

    /* A change by one context reaches the other's graph and observers on refresh, for the rows
     * it holds; a row it has not read is read as it is when it is touched. */
    mapping_object grace = MAPPING_NO_OBJECT, ada = MAPPING_NO_OBJECT;
    EXPECT_STR(name_of(reader, "2"), "Grace");
    EXPECT_OK(writer, mapping_entity_find(writer, "Person", "2", &grace));
    EXPECT_OK(writer, mapping_entity_find(writer, "Person", "1", &ada));
    EXPECT_OK(writer, mapping_object_set(writer, grace, "name", "\"Grace H.\""));
    EXPECT_OK(writer, mapping_object_set(writer, ada, "name", "\"Ada L.\""));
    EXPECT_OK(reader, mapping_context_refresh(reader));
    EXPECT(updates_seen == 1);
    EXPECT_STR(name_of(reader, "2"), "Grace H.");
    EXPECT_STR(name_of(reader, "1"), "Ada L.");
    EXPECT(updates_seen == 1);

    /* Both change Grace; the one that read her first and commits second is refused whole. */
    EXPECT_OK(reader, mapping_context_begin(reader));
    mapping_object mine = MAPPING_NO_OBJECT, other = MAPPING_NO_OBJECT;
    EXPECT_OK(reader, mapping_entity_find(reader, "Person", "2", &mine));
    EXPECT_OK(reader, mapping_entity_find(reader, "Person", "1", &other));
    EXPECT_OK(reader, mapping_object_set(reader, mine, "name", "\"reader\""));
    EXPECT_OK(reader, mapping_object_set(reader, other, "name", "\"reader too\""));
    EXPECT_OK(writer, mapping_object_set(writer, grace, "name", "\"writer\""));
    EXPECT_RC(reader, MAPPING_ECONFLICT, mapping_context_commit(reader));
    EXPECT(strstr(mapping_error_message(reader), "another process changed") != NULL);
    EXPECT_STR(mapping_error_name(MAPPING_ECONFLICT), "MAPPING_ECONFLICT");
    /* The next call brings the reader up to the database: the writer's name, and Ada unchanged. */
    EXPECT_STR(name_of(reader, "2"), "writer");
    EXPECT(strcmp(name_of(reader, "1"), "reader too") != 0);

    /* A third context, opened now, reads the same graph as both. */
    char *expected = dump(writer);
    EXPECT_OK(reader, mapping_context_refresh(reader));
    char *seen = dump(reader);
    EXPECT_STR(seen, expected);
    mapping_context *third = open_store(spec, 0, MAPPING_OK);
    char *again = dump(third);
    EXPECT_STR(again, expected);

    /* Misuse: a NULL context. */
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_context_refresh(NULL));

    mapping_free(expected);
    mapping_free(seen);
    mapping_free(again);
    mapping_context_free(third);
    mapping_context_free(reader);
    mapping_context_free(writer);
    free(spec);
    free(payload);
    return harness_finish("postgres");
}
