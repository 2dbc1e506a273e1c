/* mapping_context_import_with from C: several root key paths in one import (K6), metadata key paths
 * (M1-M5, M7), event order, progress, and bad options. */
#include "harness.h"

static const char *dir;

typedef struct {
    char log[4096];
    size_t calls;
} event_log;

static void on_event(int event, const char *mapping, mapping_object object, size_t count, void *payload) {
    event_log *log = payload;
    static const char *names[] = {"?", "will-collection", "will-object", "did-object", "did-collection"};
    size_t used = strlen(log->log);
    snprintf(log->log + used, sizeof log->log - used, "%s%s:%s%s", used ? " " : "", names[event], mapping,
             event == MAPPING_EVENT_DID_MAP_OBJECT ? (object ? "+" : "0") :
             event == MAPPING_EVENT_WILL_MAP_COLLECTION || event == MAPPING_EVENT_DID_MAP_COLLECTION
                 ? (count == 2 ? "#2" : "#?") : "");
    log->calls++;
}

typedef struct {
    size_t calls, done, known;
} progress_log;

static void on_progress(size_t done, size_t known, void *payload) {
    progress_log *log = payload;
    log->calls++;
    log->done = done;
    log->known = known;
}

static void test_several_root_key_paths_K6(void) {
    const char *spec =
        "{\"entities\": {\"Product\": {\"attributes\": {\"code\": \"integer\", \"names\": \"json\"}},"
        " \"Category\": {\"attributes\": {\"code\": \"integer\", \"names\": \"json\"}}},"
        " \"mappings\": {\"product\": {\"entity\": \"Product\", \"rootPath\": \"products\","
        "   \"attributes\": {\"code\": \"prodId\", \"names\": \"translations\"}},"
        "  \"category\": {\"entity\": \"Category\", \"rootPath\": \"categories\","
        "   \"attributes\": {\"code\": \"catId\", \"names\": \"translations\"}}}}";
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    char *payload = harness_read(dir, "reference/SameKeyDifferentTargetClasses.json");
    const char *mappings[] = {"product", "category"};
    mapping_list *out = NULL;
    EXPECT_OK(ctx, mapping_context_import_with(ctx, mappings, 2, payload, MAPPING_NUL_TERMINATED, NULL, &out));
    EXPECT(mapping_list_count(out) == 4);
    const char *entity = NULL;
    mapping_object object = 0;
    EXPECT_OK(ctx, mapping_list_at(out, 2, &object));
    EXPECT_OK(ctx, mapping_object_entity(ctx, object, &entity));
    EXPECT_STR(entity, "Category");
    /* One of them failing fails both: nothing from the first is kept. */
    EXPECT_RC(ctx, MAPPING_EMAPPING, mapping_context_import_with(ctx, mappings, 2, "{\"products\": [{\"prodId\": 9}]}",
                                                         MAPPING_NUL_TERMINATED, NULL, NULL));
    size_t count = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Product", &count));
    EXPECT(count == 2);
    free(payload);
    mapping_list_free(out);
    mapping_context_free(ctx);
}

static void test_metadata_events_and_progress(void) {
    const char *spec =
        "{\"entities\": {\"User\": {\"attributes\": {\"name\": \"string\", \"userID\": \"integer\","
        "   \"website\": \"string\", \"email\": \"string\", \"country\": \"string\", \"houseID\": \"integer\"},"
        "   \"identification\": [\"name\"],"
        "   \"relationships\": {\"friends\": {\"entity\": \"User\", \"toMany\": true, \"ordered\": true}}}},"
        " \"mappings\": {\"user\": {\"entity\": \"User\", \"attributes\": {\"name\": \"name\","
        "   \"website\": \"@metadata.HTTP.request.URL\", \"email\": \"@metadata.HTTP.request.headers.Content-Type\","
        "   \"country\": \"@metadata.mapping.country\", \"houseID\": \"house_id\"},"
        "   \"relationships\": {\"friends\": {\"mapping\": \"friend\"}}},"
        "  \"friend\": {\"entity\": \"User\", \"attributes\": {\"name\": \"name\","
        "   \"userID\": \"@metadata.mapping.collectionIndex\", \"houseID\": \"@metadata.mapping.parentObject.houseID\"}}}}";
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    event_log events = {{0}, 0};
    progress_log progress = {0, 0, 0};
    mapping_import_options options = MAPPING_IMPORT_OPTIONS_INIT;
    options.metadata = "{\"HTTP\": {\"request\": {\"URL\": \"http://restkit.org/\","
                       " \"headers\": {\"Content-Type\": \"text/html; charset=UTF-8\"}}},"
                       " \"mapping\": {\"country\": \"United States of America\"}}";
    options.metadata_len = MAPPING_NUL_TERMINATED;
    options.on_event = on_event;
    options.event_payload = &events;
    options.on_progress = on_progress;
    options.progress_payload = &progress;
    options.progress_interval = 2;
    const char *mappings[] = {"user"};
    mapping_list *out = NULL;
    EXPECT_OK(ctx, mapping_context_import_with(ctx, mappings, 1,
              "{\"name\": \"Blake Watters\", \"house_id\": 12345, \"friends\": [{\"name\": \"Jeff Arena\"}, {\"name\": \"Sarah\"}]}",
              MAPPING_NUL_TERMINATED, &options, &out));
    mapping_object blake = 0, jeff = 0, sarah = 0;
    EXPECT_OK(ctx, mapping_list_at(out, 0, &blake));
    EXPECT_OK(ctx, mapping_entity_find(ctx, "User", "\"Jeff Arena\"", &jeff));
    EXPECT_OK(ctx, mapping_entity_find(ctx, "User", "\"Sarah\"", &sarah));
    const char *text = NULL;
    int64_t number = -1;
    EXPECT_OK(ctx, mapping_object_get_string(ctx, blake, "website", &text, NULL));
    EXPECT_STR(text, "http://restkit.org/");                          /* M1 */
    EXPECT_OK(ctx, mapping_object_get_string(ctx, blake, "email", &text, NULL));
    EXPECT_STR(text, "text/html; charset=UTF-8");                     /* M2 */
    EXPECT_OK(ctx, mapping_object_get_string(ctx, blake, "country", &text, NULL));
    EXPECT_STR(text, "United States of America");                     /* M5: merged with the built-ins */
    EXPECT_OK(ctx, mapping_object_get_int64(ctx, jeff, "userID", &number));
    EXPECT(number == 0);                                              /* M3 */
    EXPECT_OK(ctx, mapping_object_get_int64(ctx, sarah, "userID", &number));
    EXPECT(number == 1);
    EXPECT_OK(ctx, mapping_object_get_int64(ctx, sarah, "houseID", &number));
    EXPECT(number == 12345);                                          /* M7: the parent object's value */
    EXPECT_STR(events.log, "will-object:user will-collection:friend#2 will-object:friend did-object:friend+ "
                           "will-object:friend did-object:friend+ did-collection:friend#2 did-object:user+");
    EXPECT(progress.calls == 2);  /* after 2 objects, and at the end */
    EXPECT(progress.done == 3 && progress.known == 3);
    mapping_list_free(out);

    /* M4: the index of each top-level representation. */
    const char *friends[] = {"friend"};
    EXPECT_OK(ctx, mapping_context_import_with(ctx, friends, 1, "[{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}, {\"name\": \"d\"}]",
                                       MAPPING_NUL_TERMINATED, NULL, &out));
    for (size_t i = 0; i < mapping_list_count(out); i++) {
        mapping_object user = 0;
        EXPECT_OK(ctx, mapping_list_at(out, i, &user));
        EXPECT_OK(ctx, mapping_object_get_int64(ctx, user, "userID", &number));
        EXPECT(number == (int64_t)i);
    }
    mapping_list_free(out);

    /* Bad options: version, metadata that is not an object or not JSON, no mappings. */
    options.version = 99;
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_import_with(ctx, mappings, 1, "{}", 2, &options, NULL));
    options.version = MAPPING_IMPORT_OPTIONS_VERSION;
    options.metadata = "[1]";
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_import_with(ctx, mappings, 1, "{\"name\": \"x\"}", MAPPING_NUL_TERMINATED, &options, NULL));
    options.metadata = "{oops";
    EXPECT_RC(ctx, MAPPING_EPARSE, mapping_context_import_with(ctx, mappings, 1, "{\"name\": \"x\"}", MAPPING_NUL_TERMINATED, &options, NULL));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_import_with(ctx, mappings, 0, "{}", 2, NULL, NULL));
    size_t count = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "User", &count));
    EXPECT(count == 7);
    mapping_context_free(ctx);
}

typedef struct {
    char log[2048];
    size_t calls;
} warning_log;

static void on_warning(int warning, const char *mapping, const char *element, const char *where, size_t count,
                       const char *message, void *payload) {
    warning_log *log = payload;
    size_t used = strlen(log->log);
    snprintf(log->log + used, sizeof log->log - used, "%s%d %s %s %s %zu", used ? " | " : "", warning, mapping, element,
             where, count);
    EXPECT(strlen(message) > 20);
    log->calls++;
}

/* Import options for a strict import that reports each warning to `log`. */
static mapping_import_options checked_options(warning_log *log) {
    mapping_import_options options = MAPPING_IMPORT_OPTIONS_INIT;
    options.checks = MAPPING_CHECK_STRICT | MAPPING_CHECK_WARN;
    options.on_warning = on_warning;
    options.warning_payload = log;
    return options;
}

/* Checks (version 3): a misspelled key path and representations without identification are reported
 * to on_warning; MAPPING_CHECK_STRICT fails the import and changes nothing; version 2 callers are read
 * as such (no checks). */
static void test_warnings_and_strict_imports(void) {
    char *spec = harness_read(dir, "people.spec.json");
    char *payload = harness_read(dir, "people.json");
    char *typo = strstr(spec, "\"address.city\"");
    EXPECT(typo != NULL);
    if (typo) memcpy(typo, "\"adress.city\" ", 14);  /* the same length: one letter less, one space more */
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    const char *person[] = {"person"};
    warning_log log = {{0}, 0};
    mapping_import_options options = checked_options(&log);
    EXPECT_RC(ctx, MAPPING_EMAPPING, mapping_context_import_with(ctx, person, 1, payload, MAPPING_NUL_TERMINATED, &options, NULL));
    EXPECT(strstr(mapping_error_message(ctx), "strict import: key path \"adress.city\"") != NULL);
    EXPECT_STR(log.log, "1 person Person.city adress.city 3");
    size_t count = 99;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Person", &count));
    EXPECT(count == 0);

    /* Without STRICT the import goes through, and each warning is still reported. */
    log = (warning_log){{0}, 0};
    options.checks = MAPPING_CHECK_WARN;
    const char *phones = "{\"data\": {\"people\": [{\"id\": 1, \"adress\": {\"city\": \"Rome\"}, \"phones\": [{\"kind\": \"home\"}]}]}}";
    EXPECT_OK(ctx, mapping_context_import_with(ctx, person, 1, phones, MAPPING_NUL_TERMINATED, &options, NULL));
    EXPECT(strstr(log.log, "2 phone Phone $.data.people[0].phones[0] 1") != NULL);
    EXPECT(strstr(log.log, "Person.city") == NULL);  /* the misspelled key was there this time */
    EXPECT(log.calls > 1);  /* the other key paths this payload lacks (name, age, ...) too */

    /* A version 2 caller's struct ends before `checks`: nothing is checked or called. */
    log = (warning_log){{0}, 0};
    options.version = 2;
    EXPECT_OK(ctx, mapping_context_import_with(ctx, person, 1, payload, MAPPING_NUL_TERMINATED, &options, NULL));
    EXPECT(log.calls == 0);
    options.version = MAPPING_IMPORT_OPTIONS_VERSION;
    options.checks = 8;
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_import_with(ctx, person, 1, payload, MAPPING_NUL_TERMINATED, &options, NULL));
    mapping_context_free(ctx);
    free(spec);
    free(payload);
}

/* A key path the mapping lists in "optional" that matches nothing is no warning (and fails no strict
 * import) unless MAPPING_CHECK_OPTIONAL asks for it. */
static void test_optional_key_paths(void) {
    const char *spec = "{\"entities\": {\"Pet\": {\"attributes\": {\"id\": \"integer\", \"nick\": \"string\"},"
                       " \"identification\": [\"id\"]}},"
                       " \"mappings\": {\"pet\": {\"entity\": \"Pet\", \"attributes\": {\"id\": \"id\", \"nick\": \"nickname\"},"
                       " \"optional\": [\"nick\"]}}}";
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    const char *pet[] = {"pet"};
    warning_log log = {{0}, 0};
    mapping_import_options options = checked_options(&log);
    EXPECT_OK(ctx, mapping_context_import_with(ctx, pet, 1, "[{\"id\": 1}]", MAPPING_NUL_TERMINATED, &options, NULL));
    EXPECT(log.calls == 0);
    options.checks = MAPPING_CHECK_WARN | MAPPING_CHECK_OPTIONAL;
    EXPECT_OK(ctx, mapping_context_import_with(ctx, pet, 1, "[{\"id\": 2}]", MAPPING_NUL_TERMINATED, &options, NULL));
    EXPECT_STR(log.log, "1 pet Pet.nick nickname 1");
    options.checks = MAPPING_CHECK_WARN | MAPPING_CHECK_STRICT | MAPPING_CHECK_OPTIONAL;
    EXPECT_RC(ctx, MAPPING_EMAPPING, mapping_context_import_with(ctx, pet, 1, "[{\"id\": 3}]", MAPPING_NUL_TERMINATED, &options, NULL));
    size_t count = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Pet", &count));
    EXPECT(count == 2);
    mapping_context_free(ctx);
}

int main(int argc, char **argv) {
    dir = argc > 1 ? argv[1] : "Tests/fixtures";
    test_several_root_key_paths_K6();
    test_metadata_events_and_progress();
    test_warnings_and_strict_imports();
    test_optional_key_paths();
    return harness_finish("c import options");
}
