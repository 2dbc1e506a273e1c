/* The SQLite store from C: a graph written, freed and reopened is the same graph (every value,
 * relationship and order, compared through serialization), read as it is touched (a fetch the
 * database runs and one memory finishes agree, a column read over objects not read yet); a failed
 * import leaves the file as it was; a second open is busy; a read-only store; a grown spec and a
 * changed one; files that are not stores. */
#include "harness.h"

#include <unistd.h>

static char path[256];

/* Every person and company, written out through the spec's mappings: the graph as text. */
static char *dump(mapping_context *ctx) {
    mapping_list *people = NULL, *companies = NULL;
    char *a = NULL, *b = NULL;
    EXPECT_OK(ctx, mapping_entity_all(ctx, "Person", &people));
    EXPECT_OK(ctx, mapping_entity_all(ctx, "Company", &companies));
    EXPECT_OK(ctx, mapping_list_serialize(ctx, "person", people, MAPPING_SERIALIZE_NULLS, &a));
    EXPECT_OK(ctx, mapping_list_serialize(ctx, "company", companies, MAPPING_SERIALIZE_NULLS, &b));
    size_t length = (a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 2;
    char *text = malloc(length);
    snprintf(text, length, "%s\n%s", a ? a : "", b ? b : "");
    mapping_free(a);
    mapping_free(b);
    mapping_list_free(people);
    mapping_list_free(companies);
    return text;
}

/* `text` with its first `from` replaced by `to`; the caller frees it. */
static char *replaced(const char *text, const char *from, const char *to) {
    const char *at = strstr(text, from);
    size_t length = strlen(text) + strlen(to) + 1;
    char *result = malloc(length);
    if (!at) {
        snprintf(result, length, "%s", text);
        return result;
    }
    snprintf(result, length, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return result;
}

static mapping_context *open_store(const char *spec, unsigned flags, int expected) {
    mapping_context *ctx = NULL;
    EXPECT_RC(NULL, expected, mapping_context_open(spec, MAPPING_NUL_TERMINATED, path, flags, &ctx));
    return ctx;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "Tests/fixtures";
    char *spec = harness_read(dir, "people.spec.json");
    char *payload = harness_read(dir, "people.json");
    char *update = harness_read(dir, "people_update.json");
    snprintf(path, sizeof path, "/tmp/mapping-test-store-%ld.db", (long)getpid());
    unlink(path);

    /* Missing without CREATE; then created, written and freed. A location that reads as a mistyped
     * PostgreSQL URI is refused, saying the form to use, and no file of that name is made. */
    EXPECT(open_store(spec, 0, MAPPING_ESTORE) == NULL);
    EXPECT(strstr(mapping_error_message(NULL), "MAPPING_OPEN_CREATE") != NULL);
    mapping_context *odd = NULL;
    EXPECT_RC(NULL, MAPPING_ESTORE, mapping_context_open(spec, MAPPING_NUL_TERMINATED, "postgres:/db", MAPPING_OPEN_CREATE, &odd));
    EXPECT(odd == NULL && strstr(mapping_error_message(NULL), "postgresql://") != NULL);
    EXPECT(access("postgres:", F_OK) != 0);
    mapping_context *ctx = open_store(spec, MAPPING_OPEN_CREATE, MAPPING_OK);
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", payload, MAPPING_NUL_TERMINATED, NULL));
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", update, MAPPING_NUL_TERMINATED, NULL));
    mapping_object grace = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", "2", &grace));
    EXPECT_OK(ctx, mapping_object_set(ctx, grace, "weight", "123456789012345678901234.5678"));
    char *before = dump(ctx);

    /* While it is open, a second context on the file is refused. */
    EXPECT(open_store(spec, 0, MAPPING_EBUSY) == NULL);
    mapping_context_free(ctx);

    /* Reopened, rows are read as they are touched: a fetch the database runs whole (an id range,
     * sorted by name) and the same fetch with a test only memory can run (BEGINSWITH) agree, and a
     * column read over the first fetch's objects (rows not read yet) matches their values read one
     * by one. */
    ctx = open_store(spec, 0, MAPPING_OK);
    mapping_list *whole = NULL, *finished = NULL;
    EXPECT_OK(ctx, mapping_entity_fetch(ctx, "Person", "id >= %@", "[1]", "-name", 0, 0, 0, &whole));
    EXPECT_OK(ctx, mapping_entity_fetch(ctx, "Person", "id >= %@ AND NOT name BEGINSWITH %@", "[1, \"zz\"]", "-name", 0, 0, 0,
                                        &finished));
    char *names = NULL;
    EXPECT_OK(ctx, mapping_list_values(ctx, whole, "name", &names));
    EXPECT(mapping_list_count(whole) == 3 && mapping_list_count(finished) == 3);
    char expected[256] = "[";
    for (size_t index = 0; index < mapping_list_count(whole); index++) {
        mapping_object one = MAPPING_NO_OBJECT, other = MAPPING_NO_OBJECT;
        const char *name = NULL;
        EXPECT_OK(ctx, mapping_list_at(whole, index, &one));
        EXPECT_OK(ctx, mapping_list_at(finished, index, &other));
        EXPECT(one == other);
        EXPECT_OK(ctx, mapping_object_get_string(ctx, one, "name", &name, NULL));
        size_t used = strlen(expected);
        snprintf(expected + used, sizeof expected - used, "%s\"%s\"", index ? "," : "", name ? name : "");
    }
    strncat(expected, "]", sizeof expected - strlen(expected) - 1);
    EXPECT_STR(names, expected);
    mapping_free(names);
    mapping_list_free(whole);
    mapping_list_free(finished);

    /* The cache limit: the default until set; at 1, each call evicts what the ones before read. A
     * string read stays valid across its object's eviction (its bytes are kept), and an evicted
     * handle reads its row again. NULL outputs are allowed; a NULL context is misuse. */
    size_t held = 0, limit = 0;
    EXPECT_OK(ctx, mapping_context_cache_info(ctx, NULL, &limit));
    EXPECT(limit == MAPPING_DEFAULT_CACHE_LIMIT);
    EXPECT_OK(ctx, mapping_context_set_cache_limit(ctx, 1));
    mapping_object first_person = MAPPING_NO_OBJECT, again = MAPPING_NO_OBJECT;
    const char *first = NULL, *second = NULL, *third = NULL;
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", "1", &first_person));
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", "2", &grace));
    EXPECT_OK(ctx, mapping_object_get_string(ctx, first_person, "name", &first, NULL));
    EXPECT_OK(ctx, mapping_object_get_string(ctx, grace, "name", &second, NULL));
    EXPECT_OK(ctx, mapping_context_cache_info(ctx, &held, &limit));
    EXPECT(held <= 1 && limit == 1);
    mapping_list *companies = NULL;
    EXPECT_OK(ctx, mapping_entity_all(ctx, "Company", &companies));
    mapping_list_free(companies);
    EXPECT_OK(ctx, mapping_context_cache_info(ctx, &held, NULL));
    EXPECT(held <= 1);
    EXPECT_OK(ctx, mapping_object_get_string(ctx, first_person, "name", &third, NULL));
    EXPECT_STR(first, third);
    EXPECT_STR(second, "Grace Hopper");
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", "1", &again));
    EXPECT(again == first_person);
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_context_set_cache_limit(NULL, 1));
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_context_cache_info(NULL, &held, &limit));
    EXPECT_OK(ctx, mapping_context_set_cache_limit(ctx, 0));

    char *after = dump(ctx);
    EXPECT_STR(after, before);
    free(after);

    /* A failed import changes neither the graph nor the file. */
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_context_import(ctx, "person", "{\"data\": {\"people\": [{\"id\": 9}, {\"id\": \"x\"}]}}",
                                                         MAPPING_NUL_TERMINATED, NULL));
    mapping_context_free(ctx);
    ctx = open_store(spec, 0, MAPPING_OK);
    after = dump(ctx);
    EXPECT_STR(after, before);
    free(after);
    size_t count = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Person", &count));
    EXPECT(count == 3); /* Ada, Grace and Linus from the update */
    mapping_context_free(ctx);

    /* Read-only: the graph loads, a commit fails and changes nothing. */
    ctx = open_store(spec, MAPPING_OPEN_READONLY, MAPPING_OK);
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", "2", &grace));
    EXPECT_RC(ctx, MAPPING_ESTORE, mapping_object_set(ctx, grace, "name", "\"Changed\""));
    after = dump(ctx);
    EXPECT_STR(after, before);
    free(after);
    mapping_context_free(ctx);

    /* A grown spec: the store gains the column, keeps every object, and records the new spec. */
    char *grown = replaced(spec, "\"city\": \"string\"", "\"city\": \"string\", \"nickname\": \"string\"");
    ctx = open_store(grown, 0, MAPPING_OK);
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Person", &count));
    EXPECT(count == 3);
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", "2", &grace));
    bool null = false;
    EXPECT_OK(ctx, mapping_object_is_null(ctx, grace, "nickname", &null));
    EXPECT(null);
    EXPECT_OK(ctx, mapping_object_set(ctx, grace, "nickname", "\"Amazing Grace\""));
    mapping_context_free(ctx);
    ctx = open_store(grown, 0, MAPPING_OK);
    const char *nickname = NULL;
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", "2", &grace));
    EXPECT_OK(ctx, mapping_object_get_string(ctx, grace, "nickname", &nickname, NULL));
    EXPECT_STR(nickname, "Amazing Grace");
    mapping_context_free(ctx);
    /* A renamed attribute (renamedFrom) keeps its values. */
    char *town = replaced(grown, "\"city\": \"string\"", "\"town\": {\"type\": \"string\", \"renamedFrom\": \"city\"}");
    char *renamed = replaced(town, "\"city\": \"address.city\"", "\"town\": \"address.city\"");
    ctx = open_store(renamed, 0, MAPPING_OK);
    const char *place = NULL;
    mapping_object ada = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", "1", &ada));
    EXPECT_OK(ctx, mapping_object_get_string(ctx, ada, "town", &place, NULL));
    EXPECT_STR(place, "London");
    EXPECT_RC(ctx, MAPPING_ENAME, mapping_object_get_string(ctx, ada, "city", &place, NULL));
    mapping_context_free(ctx);
    /* The old spec no longer fits: city is gone from the store. */
    EXPECT(open_store(grown, 0, MAPPING_ESPEC) == NULL);
    EXPECT(strstr(mapping_error_message(NULL), "Person.town") != NULL);
    free(town);
    free(renamed);

    /* A changed type is refused, naming the attribute, unless the store is rebuilt. */
    char *retyped = replaced(grown, "\"age\": \"integer\"", "\"age\": \"string\"");
    EXPECT(open_store(retyped, 0, MAPPING_ESPEC) == NULL);
    EXPECT(strstr(mapping_error_message(NULL), "Person.age") != NULL);
    ctx = open_store(retyped, MAPPING_OPEN_REBUILD, MAPPING_OK);
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Person", &count));
    EXPECT(count == 0);
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", payload, MAPPING_NUL_TERMINATED, NULL));
    mapping_context_free(ctx);
    free(grown);
    free(retyped);

    /* A different spec, a file that is not a database, and a database that is not a store. */
    const char *other = "{\"entities\": {\"A\": {\"attributes\": {\"id\": \"integer\"}}},"
                        " \"mappings\": {\"a\": {\"entity\": \"A\", \"attributes\": {\"id\": \"id\"}}}}";
    EXPECT(open_store(other, 0, MAPPING_ESPEC) == NULL);
    FILE *file = fopen(path, "w");
    if (file) {
        fputs("this is not a database, but it is long enough to look like a header of one............", file);
        fclose(file);
    }
    EXPECT(open_store(spec, 0, MAPPING_ESTORE) == NULL);
    EXPECT(strstr(mapping_error_message(NULL), path) != NULL);

    unlink(path);
    char wal[300], shm[300];
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(shm, sizeof shm, "%s-shm", path);
    unlink(wal);
    unlink(shm);
    free(before);
    free(spec);
    free(payload);
    free(update);
    return harness_finish("c store");
}
