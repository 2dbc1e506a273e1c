/* Observers from C: what each commit reports (inserted, updated with the names changed, deleted by
 * entity and identity), nothing for a re-import, a rollback or a failure, calls back into the
 * context from the observer, a change set that is stale after its call, and unobserve. Then a
 * watched fetch: results and exact positions after each commit. */
#include "harness.h"

typedef struct {
    int calls;
    size_t inserted, updated, deleted;
    char entity[32], identity[64], changed[64];
    char name[64];             /* a value read back from the context inside the observer */
    const mapping_changes *kept; /* the change set pointer, to check it is stale afterwards */
} seen;

static void observer(mapping_context *ctx, const mapping_changes *changes, void *payload) {
    seen *log = payload;
    const char *text = NULL;
    mapping_object object = MAPPING_NO_OBJECT;
    log->calls++;
    log->kept = changes;
    mapping_changes_count(changes, MAPPING_CHANGE_INSERTED, &log->inserted);
    mapping_changes_count(changes, MAPPING_CHANGE_UPDATED, &log->updated);
    mapping_changes_count(changes, MAPPING_CHANGE_DELETED, &log->deleted);
    log->entity[0] = log->identity[0] = log->changed[0] = log->name[0] = '\0';
    if (log->deleted > 0 && mapping_changes_entity(changes, MAPPING_CHANGE_DELETED, 0, &text) == MAPPING_OK) {
        snprintf(log->entity, sizeof log->entity, "%s", text);
        if (mapping_changes_identity(changes, 0, &text) == MAPPING_OK) snprintf(log->identity, sizeof log->identity, "%s", text);
    }
    if (log->updated > 0 && mapping_changes_changed(changes, 0, &text) == MAPPING_OK) {
        snprintf(log->changed, sizeof log->changed, "%s", text);
        /* The observer runs outside the context's lock: reading the context works. */
        if (mapping_changes_object(changes, MAPPING_CHANGE_UPDATED, 0, &object) == MAPPING_OK &&
            mapping_object_get_string(ctx, object, "name", &text, NULL) == MAPPING_OK) {
            snprintf(log->name, sizeof log->name, "%s", text);
        }
    }
}

typedef struct {
    int calls;
    size_t results, removed, inserted, updated, moved, moved_from, moved_to;
    mapping_object first;
} watched;

static void watch(mapping_context *ctx, const mapping_fetch_change *change, void *payload) {
    watched *log = payload;
    mapping_list *results = NULL;
    (void)ctx;
    log->calls++;
    mapping_fetch_change_count(change, MAPPING_POSITION_REMOVED, &log->removed);
    mapping_fetch_change_count(change, MAPPING_POSITION_INSERTED, &log->inserted);
    mapping_fetch_change_count(change, MAPPING_POSITION_UPDATED, &log->updated);
    mapping_fetch_change_count(change, MAPPING_POSITION_MOVED, &log->moved);
    if (log->moved > 0) mapping_fetch_change_position(change, MAPPING_POSITION_MOVED, 0, &log->moved_to, &log->moved_from);
    if (mapping_fetch_change_results(change, &results) == MAPPING_OK) {
        log->results = mapping_list_count(results);
        log->first = MAPPING_NO_OBJECT;
        if (log->results > 0) mapping_list_at(results, 0, &log->first);
        mapping_list_free(results);
    }
}

static void test_watch(const char *dir) {
    mapping_context *ctx = harness_context(dir, "people.spec.json");
    char *payload = harness_read(dir, "people.json");
    watched log;
    memset(&log, 0, sizeof log);
    uint64_t token = 0;
    EXPECT_RC(ctx, MAPPING_ENAME, mapping_context_watch(ctx, "Nobody", NULL, NULL, NULL, 0, watch, &log, &token));
    EXPECT_RC(ctx, MAPPING_EPREDICATE, mapping_context_watch(ctx, "Person", "age >", NULL, NULL, 0, watch, &log, &token));
    EXPECT_OK(ctx, mapping_context_watch(ctx, "Person", NULL, NULL, "name", 0, watch, &log, &token));

    EXPECT_OK(ctx, mapping_context_import(ctx, "person", payload, MAPPING_NUL_TERMINATED, NULL));
    EXPECT(log.calls == 1 && log.results == 2 && log.inserted == 2 && log.removed == 0 && log.moved == 0);

    /* Grace renamed to sort first: one move, from 1 to 0, and an update at 0. */
    mapping_object grace = MAPPING_NO_OBJECT, company = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", "2", &grace));
    EXPECT_OK(ctx, mapping_object_set(ctx, grace, "name", "\"Aaron\""));
    EXPECT(log.calls == 2 && log.moved == 1 && log.moved_from == 1 && log.moved_to == 0 && log.updated == 1);
    EXPECT(log.first == grace);

    /* A commit that leaves the results alone: no call. */
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Company", "10", &company));
    EXPECT_OK(ctx, mapping_object_set(ctx, company, "name", "\"Other\""));
    EXPECT(log.calls == 2);

    EXPECT_OK(ctx, mapping_object_delete(ctx, grace));
    EXPECT(log.calls == 3 && log.removed == 1 && log.results == 1);

    EXPECT_OK(ctx, mapping_context_unobserve(ctx, token));
    free(payload);
    mapping_context_free(ctx);
}

static void warned(mapping_context *ctx, const char *message, void *payload) {
    (void)ctx;
    (void)message;
    ++*(int *)payload;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "Tests/fixtures";
    mapping_context *ctx = harness_context(dir, "people.spec.json");
    char *payload = harness_read(dir, "people.json");
    seen log;
    memset(&log, 0, sizeof log);
    uint64_t token = 0;
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_observe(ctx, NULL, &log, &token));
    EXPECT_OK(ctx, mapping_context_observe(ctx, observer, &log, &token));
    EXPECT(token != 0);

    /* A warning handler: set, replaced and cleared; a context without a database has nothing to warn of. */
    int warnings = 0;
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_context_set_warning_handler(NULL, warned, &warnings));
    EXPECT_OK(ctx, mapping_context_set_warning_handler(ctx, warned, &warnings));

    /* An import: 2 people, 2 companies, 3 phones inserted. */
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", payload, MAPPING_NUL_TERMINATED, NULL));
    EXPECT(log.calls == 1 && log.inserted == 7 && log.updated == 0 && log.deleted == 0);
    EXPECT(warnings == 0);
    EXPECT_OK(ctx, mapping_context_set_warning_handler(ctx, NULL, NULL));
    /* The same payload again changes nothing: no call. */
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", payload, MAPPING_NUL_TERMINATED, NULL));
    EXPECT(log.calls == 1);

    /* A set: one update naming the attribute; the observer read the new value back. */
    mapping_object grace = MAPPING_NO_OBJECT, phone = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", "2", &grace));
    EXPECT_OK(ctx, mapping_object_set(ctx, grace, "name", "\"Grace Hopper\""));
    EXPECT(log.calls == 2 && log.updated == 1 && log.inserted == 0);
    EXPECT_STR(log.changed, "[\"name\"]");
    EXPECT_STR(log.name, "Grace Hopper");
    EXPECT(mapping_error_last(ctx)->code == MAPPING_OK); /* the set's outcome, not the observer's calls */

    /* The change set is lent for the call only. */
    size_t count = 0;
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_changes_count(log.kept, MAPPING_CHANGE_UPDATED, &count));

    /* A delete: the phone by entity and identity, its owner updated. */
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Phone", "\"+1-555\"", &phone));
    EXPECT_OK(ctx, mapping_object_delete(ctx, phone));
    EXPECT(log.calls == 3 && log.deleted == 1 && log.updated == 1);
    EXPECT_STR(log.entity, "Phone");
    EXPECT_STR(log.identity, "\"+1-555\"");
    EXPECT_STR(log.changed, "[\"phones\"]");

    /* A rollback and a failed import: no call. */
    EXPECT_OK(ctx, mapping_context_begin(ctx));
    EXPECT_OK(ctx, mapping_object_set(ctx, grace, "age", "86"));
    EXPECT_OK(ctx, mapping_context_rollback(ctx));
    EXPECT_RC(ctx, MAPPING_ETYPE, mapping_context_import(ctx, "person", "{\"data\": {\"people\": [{\"id\": \"x\"}]}}",
                                                         MAPPING_NUL_TERMINATED, NULL));
    EXPECT(log.calls == 3);

    /* Unobserved: no more calls; a second unobserve finds nothing. */
    EXPECT_OK(ctx, mapping_context_unobserve(ctx, token));
    EXPECT_RC(ctx, MAPPING_ENOTFOUND, mapping_context_unobserve(ctx, token));
    EXPECT_OK(ctx, mapping_object_set(ctx, grace, "age", "87"));
    EXPECT(log.calls == 3);

    free(payload);
    mapping_context_free(ctx);
    test_watch(dir);
    return harness_finish("c observers");
}
