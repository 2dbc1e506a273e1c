/* A program that uses jansson itself, beside libmapping. libmapping's jansson parses allocate from an
 * arena through jansson's process-wide allocation functions, forwarding every other allocation to
 * the functions installed before it; the program must not notice:
 *   - trees it made before libmapping's first parse are read and freed after it;
 *   - its threads make, print and free trees while other threads import through libmapping;
 *   - once it installs allocation functions of its own, libmapping's parses go through them (every
 *     allocation freed by the end of the import), and once it puts the previous ones back, through
 *     the arena again (its functions called no more).
 * Under AddressSanitizer (`make test-asan`) a free of memory that the matching allocator did not
 * hand out, or a leak, fails the run. */
#include "harness.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>

enum { ROUNDS = 200 };

static const char *host_text = "{\"a\": [1, 2.5, {\"b\": \"x\"}], \"c\": null}";
static const char *person_spec =
    "{\"entities\": {\"Person\": {\"attributes\": {\"id\": \"integer\", \"name\": \"string\"}}},"
    " \"mappings\": {\"person\": {\"entity\": \"Person\", \"attributes\": {\"id\": \"id\", \"name\": \"name\"}}}}";

/* Whether `tree` prints as host_text does when parsed afresh. */
static int prints_as_host_text(json_t *tree) {
    json_error_t error;
    json_t *fresh = json_loads(host_text, 0, &error);
    int same = fresh != NULL && tree != NULL && json_equal(fresh, tree);
    char *printed = tree ? json_dumps(tree, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    same = same && printed != NULL && strcmp(printed, "{\"a\":[1,2.5,{\"b\":\"x\"}],\"c\":null}") == 0;
    free(printed);
    json_decref(fresh);
    return same;
}

/* Imports `count` people through libmapping's jansson parser; 1 if all were there afterwards. */
static int import_people(int count, int base) {
    mapping_context *ctx = NULL;
    if (mapping_context_new(person_spec, MAPPING_NUL_TERMINATED, &ctx) != MAPPING_OK) return 0;
    size_t capacity = (size_t)count * 48 + 8, at = 0;
    char *payload = malloc(capacity);
    if (!payload) abort();
    at += (size_t)snprintf(payload + at, capacity - at, "[");
    for (int i = 0; i < count; i++)
        at += (size_t)snprintf(payload + at, capacity - at, "%s{\"id\": %d, \"name\": \"p%d\"}", i ? "," : "", base + i, i);
    snprintf(payload + at, capacity - at, "]");
    int ok = mapping_context_set_parser(ctx, MAPPING_PARSER_JANSSON) == MAPPING_OK
             && mapping_context_import(ctx, "person", payload, MAPPING_NUL_TERMINATED, NULL) == MAPPING_OK;
    size_t people = 0;
    ok = ok && mapping_entity_count(ctx, "Person", &people) == MAPPING_OK && people == (size_t)count;
    /* A failed parse too: its partial tree goes with its arena. */
    ok = ok && mapping_context_import(ctx, "person", "[{\"id\": 1, \"name\": [", MAPPING_NUL_TERMINATED, NULL) == MAPPING_EPARSE;
    free(payload);
    mapping_context_free(ctx);
    return ok;
}

static atomic_int host_failures, mapping_failures;

static void *host_thread(void *unused) {
    (void)unused;
    for (int round = 0; round < ROUNDS; round++) {
        json_error_t error;
        json_t *tree = json_loads(host_text, 0, &error);
        json_t *more = json_object();
        json_object_set_new(more, "round", json_integer(round));
        json_object_set(tree, "more", more);
        json_decref(more);
        json_object_del(tree, "more");
        if (!prints_as_host_text(tree)) atomic_fetch_add(&host_failures, 1);
        json_decref(tree);
    }
    return NULL;
}

static void *mapping_thread(void *unused) {
    (void)unused;
    for (int round = 0; round < ROUNDS / 10; round++)
        if (!import_people(50 + round, round * 1000)) atomic_fetch_add(&mapping_failures, 1);
    return NULL;
}

static atomic_long host_mallocs, host_frees;

static void *counting_malloc(size_t size) {
    atomic_fetch_add(&host_mallocs, 1);
    return malloc(size);
}

static void counting_free(void *pointer) {
    if (pointer) atomic_fetch_add(&host_frees, 1);
    free(pointer);
}

int main(void) {
    /* A tree made before libmapping parsed anything, with jansson's own malloc. */
    json_error_t error;
    json_t *early = json_loads(host_text, 0, &error);
    EXPECT(early != NULL);
    EXPECT(import_people(100, 0));
    EXPECT(prints_as_host_text(early));
    json_decref(early);

    /* Threads of the program's own beside threads importing. */
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) EXPECT(pthread_create(&threads[i], NULL, i % 2 ? host_thread : mapping_thread, NULL) == 0);
    for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    EXPECT(atomic_load(&host_failures) == 0);
    EXPECT(atomic_load(&mapping_failures) == 0);

    /* The program's own allocation functions, installed after libmapping's. */
    json_malloc_t previous_malloc = NULL;
    json_free_t previous_free = NULL;
    json_get_alloc_funcs(&previous_malloc, &previous_free);
    json_t *before = json_loads(host_text, 0, &error);  /* made with the previous functions */
    json_set_alloc_funcs(counting_malloc, counting_free);
    EXPECT(import_people(100, 0));
    long made = atomic_load(&host_mallocs);
    EXPECT(made > 100);                           /* libmapping's parse used them */
    EXPECT(atomic_load(&host_frees) == made);     /* and freed every allocation by the end of the import */
    json_set_alloc_funcs(previous_malloc, previous_free);
    EXPECT(import_people(100, 0));
    EXPECT(atomic_load(&host_mallocs) == made);   /* back to the arena: the program's functions idle */
    EXPECT(prints_as_host_text(before));
    json_decref(before);

    return harness_finish("c jansson host");
}
