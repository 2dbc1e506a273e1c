/* The rules observers live by, from C: once mapping_context_unobserve returns, the observer is never
 * called again (not even for the commit being delivered); an observer that frees the context ends
 * the delivery; observers that keep changing the graph stop at a depth limit with an error; a
 * transaction an observer leaves open is rolled back when it returns; and many observers cost
 * time in proportion to their number (registering, calling and removing 100,000). */
#include "harness.h"

#include <stdint.h>

/* ---- An observer removing another during one delivery ---------------------------------------- */

typedef struct {
    int calls;
    int *alive;          /* freed by the one that removes this observer; never read after */
} victim;

typedef struct {
    uint64_t token;      /* the observer to remove */
    victim *target;
    int calls;
} remover;

static void victim_observer(mapping_context *ctx, const mapping_changes *changes, void *payload) {
    (void)ctx; (void)changes;
    victim *log = payload;
    log->calls++;
    if (log->alive) (*log->alive)++;  /* a use after free if the library still called us */
}

static void remover_observer(mapping_context *ctx, const mapping_changes *changes, void *payload) {
    (void)changes;
    remover *log = payload;
    log->calls++;
    if (log->calls == 1) {
        EXPECT_OK(ctx, mapping_context_unobserve(ctx, log->token));
        free(log->target->alive);
        log->target->alive = NULL;
    }
}

static void test_removed_during_delivery(const char *dir) {
    mapping_context *ctx = harness_context(dir, "people.spec.json");
    victim second = {0, malloc(sizeof(int))};
    *second.alive = 0;
    remover first = {0, &second, 0};
    uint64_t first_token = 0;
    EXPECT_OK(ctx, mapping_context_observe(ctx, remover_observer, &first, &first_token));
    EXPECT_OK(ctx, mapping_context_observe(ctx, victim_observer, &second, &first.token));
    EXPECT_OK(ctx, mapping_context_import(ctx, "company", "{\"id\": 1, \"name\": \"A\"}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT(first.calls == 1);
    EXPECT(second.calls == 0);  /* removed before its turn: not called */
    EXPECT_OK(ctx, mapping_context_import(ctx, "company", "{\"id\": 1, \"name\": \"B\"}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT(first.calls == 2 && second.calls == 0);
    EXPECT_RC(ctx, MAPPING_ENOTFOUND, mapping_context_unobserve(ctx, first.token));
    EXPECT_OK(ctx, mapping_context_unobserve(ctx, first_token));
    mapping_context_free(ctx);
}

/* ---- An observer freeing the context ---------------------------------------------------------- */

static int after_free_calls;

static void freeing_observer(mapping_context *ctx, const mapping_changes *changes, void *payload) {
    (void)changes; (void)payload;
    mapping_context_free(ctx);
}

static void counting_observer(mapping_context *ctx, const mapping_changes *changes, void *payload) {
    (void)ctx; (void)changes; (void)payload;
    after_free_calls++;
}

static void test_context_freed_by_an_observer(const char *dir) {
    mapping_context *ctx = harness_context(dir, "people.spec.json");
    uint64_t token = 0;
    EXPECT_OK(ctx, mapping_context_observe(ctx, freeing_observer, NULL, &token));
    EXPECT_OK(ctx, mapping_context_observe(ctx, counting_observer, NULL, &token));
    EXPECT_OK(ctx, mapping_context_import(ctx, "company", "{\"id\": 1, \"name\": \"A\"}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT(after_free_calls == 0);
    size_t count = 0;
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_entity_count(ctx, "Company", &count));  /* freed: an error, not a crash */
}

/* A context holding company 1 (A), its handle in `company`, observed by `observer` with `payload`. */
static mapping_context *company_context(const char *dir, mapping_object *company, mapping_observer_fn observer,
                                        void *payload, uint64_t *token) {
    mapping_context *ctx = harness_context(dir, "people.spec.json");
    EXPECT_OK(ctx, mapping_context_import(ctx, "company", "{\"id\": 1, \"name\": \"A\"}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Company", "1", company));
    EXPECT_OK(ctx, mapping_context_observe(ctx, observer, payload, token));
    return ctx;
}

/* ---- Observers changing the graph in turn ----------------------------------------------------- */

typedef struct {
    int calls;
    int refused;         /* changes that failed with MAPPING_EMISUSE */
    char message[256];
    mapping_object company;
} endless;

static void endless_observer(mapping_context *ctx, const mapping_changes *changes, void *payload) {
    (void)changes;
    endless *log = payload;
    char value[32];
    log->calls++;
    snprintf(value, sizeof value, "\"v%d\"", log->calls);
    int rc = mapping_object_set(ctx, log->company, "name", value);  /* always a change */
    if (rc == MAPPING_EMISUSE) {
        log->refused++;
        snprintf(log->message, sizeof log->message, "%s", mapping_error_message(ctx));
    }
}

static void test_endless_changes_stop_at_the_depth_limit(const char *dir) {
    endless log;
    memset(&log, 0, sizeof log);
    uint64_t token = 0;
    mapping_context *ctx = company_context(dir, &log.company, endless_observer, &log, &token);
    /* Returns: the commit, then 31 commits made by observers in turn, then a refused change. */
    EXPECT_OK(ctx, mapping_object_set(ctx, log.company, "name", "\"start\""));
    EXPECT(log.calls == 32);
    EXPECT(log.refused == 1);
    EXPECT(strstr(log.message, "32") != NULL);
    const char *name = NULL;
    EXPECT_OK(ctx, mapping_object_get_string(ctx, log.company, "name", &name, NULL));
    EXPECT_STR(name, "v31");  /* the last change that was allowed */
    EXPECT(mapping_error_last(ctx)->code == MAPPING_OK);  /* the caller's own call succeeded */
    /* The limit is per delivery: the next change from outside starts at depth 0 again. */
    EXPECT_OK(ctx, mapping_object_set(ctx, log.company, "name", "\"again\""));
    EXPECT(log.calls == 64 && log.refused == 2);
    EXPECT_OK(ctx, mapping_context_unobserve(ctx, token));
    mapping_context_free(ctx);
}

/* ---- An observer leaving a transaction open --------------------------------------------------- */

typedef struct {
    int calls;
    mapping_object company;
} opener;

static void opening_observer(mapping_context *ctx, const mapping_changes *changes, void *payload) {
    (void)changes;
    opener *log = payload;
    if (log->calls++ > 0) return;
    EXPECT_OK(ctx, mapping_context_begin(ctx));
    EXPECT_OK(ctx, mapping_object_set(ctx, log->company, "name", "\"inside the observer\""));
    /* returns without commit or rollback */
}

static void test_a_transaction_left_open_by_an_observer_is_rolled_back(const char *dir) {
    opener log = {0, MAPPING_NO_OBJECT};
    uint64_t token = 0;
    mapping_context *ctx = company_context(dir, &log.company, opening_observer, &log, &token);
    EXPECT_OK(ctx, mapping_object_set(ctx, log.company, "name", "\"B\""));
    EXPECT(log.calls == 1);
    /* The caller's next calls are not inside the observer's transaction: there is none, and its
     * change is gone. */
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_commit(ctx));
    const char *name = NULL;
    EXPECT_OK(ctx, mapping_object_get_string(ctx, log.company, "name", &name, NULL));
    EXPECT_STR(name, "B");
    EXPECT_OK(ctx, mapping_context_import(ctx, "company", "{\"id\": 2, \"name\": \"C\"}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_rollback(ctx));
    size_t count = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Company", &count));
    EXPECT(count == 2);
    mapping_context_free(ctx);
}

/* ---- Many observers --------------------------------------------------------------------------- */

static long many_calls;

static void many_observer(mapping_context *ctx, const mapping_changes *changes, void *payload) {
    (void)ctx; (void)changes; (void)payload;
    many_calls++;
}

static void test_many_observers(const char *dir) {
    enum { COUNT = 100000 };
    mapping_context *ctx = harness_context(dir, "people.spec.json");
    uint64_t *tokens = calloc(COUNT, sizeof *tokens);
    int failures = 0;
    for (int i = 0; i < COUNT; i++) failures += mapping_context_observe(ctx, many_observer, NULL, &tokens[i]) != MAPPING_OK;
    EXPECT(failures == 0);
    EXPECT_OK(ctx, mapping_context_import(ctx, "company", "{\"id\": 1, \"name\": \"A\"}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT(many_calls == COUNT);
    /* Every other one removed, then a commit: the rest are called once each. */
    for (int i = 0; i < COUNT; i += 2) failures += mapping_context_unobserve(ctx, tokens[i]) != MAPPING_OK;
    EXPECT(failures == 0);
    EXPECT_OK(ctx, mapping_context_import(ctx, "company", "{\"id\": 1, \"name\": \"B\"}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT(many_calls == COUNT + COUNT / 2);
    for (int i = 1; i < COUNT; i += 2) failures += mapping_context_unobserve(ctx, tokens[i]) != MAPPING_OK;
    EXPECT(failures == 0);
    EXPECT_RC(ctx, MAPPING_ENOTFOUND, mapping_context_unobserve(ctx, tokens[0]));
    EXPECT_OK(ctx, mapping_context_import(ctx, "company", "{\"id\": 1, \"name\": \"C\"}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT(many_calls == COUNT + COUNT / 2);
    free(tokens);
    mapping_context_free(ctx);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "Tests/fixtures";
    test_removed_during_delivery(dir);
    test_context_freed_by_an_observer(dir);
    test_endless_changes_stop_at_the_depth_limit(dir);
    test_a_transaction_left_open_by_an_observer_is_rolled_back(dir);
    test_many_observers(dir);
    return harness_finish("test_observer_rules");
}
