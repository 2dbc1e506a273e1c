/* Transactions belong to the thread that opened them: another thread's calls wait for the end (up to
 * the busy timeout, then MAPPING_EBUSY with nothing changed), never join the transaction and can never
 * roll it back; a chunked import is one such transaction, so readers see it whole or not at all; and
 * freeing a context wakes the calls waiting on it. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "harness.h"

static const char *spec =
    "{\"entities\": {\"Item\": {\"attributes\": {\"id\": \"integer\", \"label\": \"string\"},"
    "                            \"identification\": \"id\"}},"
    " \"mappings\": {\"item\": {\"entity\": \"Item\", \"attributes\": {\"id\": \"id\", \"label\": \"label\"}}}}";

enum { TRIALS = 20, ITEMS = 20000, CHUNK = 100 };

static mapping_context *new_context(void) {
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    return ctx;
}

static size_t items(mapping_context *ctx) {
    size_t count = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Item", &count));
    return count;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

static void sleep_ms(int ms) {
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* ---- another thread's failing call during a transaction ---------------------------------------- */

struct call_result {
    mapping_context *ctx;
    int rc;
    double took_ms;
    size_t seen;
};

static void *failing_import(void *argument) {
    struct call_result *result = argument;
    double start = now_ms();
    result->rc = mapping_context_import(result->ctx, "item", "{\"id\": \"not a number\"}", MAPPING_NUL_TERMINATED, NULL);
    result->took_ms = now_ms() - start;
    return NULL;
}

static void test_failing_call_waits_and_cannot_roll_back(void) {
    mapping_context *ctx = new_context();
    EXPECT_OK(ctx, mapping_context_begin(ctx));
    EXPECT_OK(ctx, mapping_context_import(ctx, "item", "{\"id\": 1}", MAPPING_NUL_TERMINATED, NULL));
    struct call_result other = {ctx, 1, 0, 0};
    pthread_t thread;
    pthread_create(&thread, NULL, failing_import, &other);
    sleep_ms(100);  /* the other thread is now waiting for the transaction */
    EXPECT_OK(ctx, mapping_context_import(ctx, "item", "{\"id\": 2}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT(items(ctx) == 2);  /* the owner still sees its open transaction */
    EXPECT_OK(ctx, mapping_context_commit(ctx));
    pthread_join(thread, NULL);
    EXPECT(other.rc == MAPPING_ETYPE);   /* it ran after the commit, and failed on its own */
    EXPECT(other.took_ms >= 90);          /* it waited for the transaction */
    EXPECT(items(ctx) == 2);              /* both of the transaction's objects stayed */
    mapping_context_free(ctx);
}

/* ---- busy timeouts ------------------------------------------------------------------------------ */

static void *count_items(void *argument) {
    struct call_result *result = argument;
    double start = now_ms();
    result->rc = mapping_entity_count(result->ctx, "Item", &result->seen);
    result->took_ms = now_ms() - start;
    return NULL;
}

static struct call_result call_from_other_thread(mapping_context *ctx, void *(*call)(void *)) {
    struct call_result result = {ctx, 1, 0, 0};
    pthread_t thread;
    pthread_create(&thread, NULL, call, &result);
    pthread_join(thread, NULL);
    return result;
}

static void test_busy_timeouts(void) {
    mapping_context *ctx = new_context();
    EXPECT_OK(ctx, mapping_context_import(ctx, "item", "{\"id\": 1}", MAPPING_NUL_TERMINATED, NULL));
    EXPECT_OK(ctx, mapping_context_set_busy_timeout(ctx, 50));
    EXPECT_OK(ctx, mapping_context_begin(ctx));
    EXPECT_OK(ctx, mapping_context_import(ctx, "item", "{\"id\": 2}", MAPPING_NUL_TERMINATED, NULL));

    struct call_result reader = call_from_other_thread(ctx, count_items);
    EXPECT(reader.rc == MAPPING_EBUSY);
    EXPECT(reader.took_ms >= 45 && reader.took_ms < 2000);
    struct call_result writer = call_from_other_thread(ctx, failing_import);
    EXPECT(writer.rc == MAPPING_EBUSY);

    EXPECT_OK(ctx, mapping_context_set_busy_timeout(ctx, 0));
    reader = call_from_other_thread(ctx, count_items);
    EXPECT(reader.rc == MAPPING_EBUSY && reader.took_ms < 45);
    EXPECT(items(ctx) == 2);  /* the refused calls changed nothing */
    EXPECT_OK(ctx, mapping_context_rollback(ctx));
    reader = call_from_other_thread(ctx, count_items);
    EXPECT(reader.rc == MAPPING_OK && reader.seen == 1);
    EXPECT_STR(mapping_error_name(MAPPING_EBUSY), "MAPPING_EBUSY");
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_context_set_busy_timeout(NULL, 10));
    mapping_context_free(ctx);
}

/* ---- a chunked import with failing and reading threads ----------------------------------------- */

struct observer {
    mapping_context *ctx;
    atomic_int *stop;
    size_t before, after;  /* the only counts a reader may see */
    int partial;           /* counts seen that are neither */
    int reads;
};

static void *reader_loop(void *argument) {
    struct observer *o = argument;
    while (!atomic_load(o->stop)) {
        size_t count = 0;
        int rc = mapping_entity_count(o->ctx, "Item", &count);
        if (rc == MAPPING_OK) {
            o->reads++;
            if (count != o->before && count != o->after) o->partial++;
        }
    }
    return NULL;
}

static void *failing_loop(void *argument) {
    struct observer *o = argument;
    while (!atomic_load(o->stop)) {
        int rc = mapping_context_import(o->ctx, "item", "{\"id\": \"bad\"}", MAPPING_NUL_TERMINATED, NULL);
        if (rc != MAPPING_ETYPE && rc != MAPPING_EBUSY) o->partial++;
        o->reads++;
    }
    return NULL;
}

static char *chunked_payload(int count, int bad_last) {
    char *text = malloc((size_t)count * 32 + 16);
    size_t at = (size_t)sprintf(text, "[");
    for (int i = 0; i < count; i++) {
        if (bad_last && i == count - 1) at += (size_t)sprintf(text + at, "%s{\"id\": \"last\"}", i ? "," : "");
        else at += (size_t)sprintf(text + at, "%s{\"id\": %d}", i ? "," : "", i + 1);
    }
    sprintf(text + at, "]");
    return text;
}

static void test_chunked_import_is_one_transaction(int bad_last) {
    char *payload = chunked_payload(ITEMS, bad_last);
    int kept_partial = 0, readers_saw_partial = 0, wrong_result = 0, reads = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
        mapping_context *ctx = new_context();
        EXPECT_OK(ctx, mapping_context_set_busy_timeout(ctx, MAPPING_WAIT_FOREVER));
        atomic_int stop = 0;
        struct observer reader = {ctx, &stop, 0, bad_last ? 0 : ITEMS, 0, 0};
        struct observer failer = reader;
        pthread_t threads[2];
        pthread_create(&threads[0], NULL, reader_loop, &reader);
        pthread_create(&threads[1], NULL, failing_loop, &failer);
        sleep_ms(2);
        size_t count = 0;
        int rc = mapping_context_import_chunked(ctx, "item", payload, MAPPING_NUL_TERMINATED, MAPPING_CHUNKS_ARRAY, CHUNK,
                                        NULL, &count);
        if (rc != (bad_last ? MAPPING_ETYPE : MAPPING_OK)) wrong_result++;
        sleep_ms(2);
        atomic_store(&stop, 1);
        pthread_join(threads[0], NULL);
        pthread_join(threads[1], NULL);
        if (items(ctx) != (bad_last ? 0 : (size_t)ITEMS)) kept_partial++;
        readers_saw_partial += reader.partial + failer.partial;
        reads += reader.reads;
        mapping_context_free(ctx);
    }
    free(payload);
    EXPECT(wrong_result == 0);
    EXPECT(kept_partial == 0);
    EXPECT(readers_saw_partial == 0);
    EXPECT(reads > 0);
    printf("chunked import of %d items, %s: %d trials, %d reads from another thread, none partial\n", ITEMS,
           bad_last ? "last item bad" : "all good", TRIALS, reads);
}

/* ---- freeing a context while another thread waits on it ---------------------------------------- */

static void test_free_wakes_waiters(void) {
    mapping_context *ctx = new_context();
    EXPECT_OK(ctx, mapping_context_set_busy_timeout(ctx, MAPPING_WAIT_FOREVER));
    EXPECT_OK(ctx, mapping_context_begin(ctx));
    struct call_result waiter = {ctx, 1, 0, 0};
    pthread_t thread;
    pthread_create(&thread, NULL, count_items, &waiter);
    sleep_ms(100);
    mapping_context_free(ctx);
    pthread_join(thread, NULL);
    EXPECT(waiter.rc == MAPPING_EMISUSE);
    EXPECT(waiter.took_ms < 5000);
    EXPECT_RC(ctx, MAPPING_EMISUSE, mapping_context_commit(ctx));  /* the freed context's transaction is gone */
}

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    test_failing_call_waits_and_cannot_roll_back();
    test_busy_timeouts();
    test_chunked_import_is_one_transaction(1);
    test_chunked_import_is_one_transaction(0);
    test_free_wakes_waiters();
    return harness_finish("c thread transactions");
}
