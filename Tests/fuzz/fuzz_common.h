/* Shared by the libFuzzer drivers: one spec that exercises every attribute type, identities,
 * relationships with inverses and delete rules, dynamic mappings, routes and response descriptors;
 * helpers that split a fuzz input into parts; and a reusable graph.
 *
 * Speed and reproducibility: a driver makes its contexts once and brings them back to the same
 * baseline graph after every input (a transaction rolled back, or a new context when an input
 * committed), so an input's outcome never depends on the inputs before it and the graph never grows.
 *
 * Leak detection: LeakSanitizer does not recognise some of the graph's pointers (Swift keeps the
 * case of an indirect enum, such as a json attribute's value, in the spare bits of the pointer to
 * its box), so a live graph's JSON values read as leaks. What a driver keeps between inputs is
 * therefore made inside FUZZ_KEEP (LeakSanitizer ignores those allocations), and everything an input
 * makes is released before it returns: what is left over is a real leak.
 *
 * A driver aborts only on a broken promise (a crash or sanitizer report is the fuzzer's own finding). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <mapping.h>
#include <sanitizer/lsan_interface.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *fuzz_spec =
    "{\"entities\": {"
    "  \"Person\": {\"attributes\": {\"id\": \"integer\", \"name\": \"string\", \"score\": \"double\","
    "              \"price\": {\"type\": \"decimal\", \"indexed\": true}, \"on\": \"boolean\", \"at\": \"date\","
    "              \"data\": \"json\", \"age\": {\"type\": \"integer\", \"indexed\": true}},"
    "              \"identification\": \"id\","
    "              \"relationships\": {\"company\": {\"entity\": \"Company\", \"inverse\": \"staff\"},"
    "                                \"tags\": {\"entity\": \"Tag\", \"toMany\": true, \"ordered\": true},"
    "                                \"friends\": {\"entity\": \"Person\", \"toMany\": true}}},"
    "  \"Company\": {\"attributes\": {\"id\": \"string\", \"name\": \"string\"}, \"identification\": \"id\","
    "               \"relationships\": {\"staff\": {\"entity\": \"Person\", \"toMany\": true, \"inverse\": \"company\","
    "                                             \"deleteRule\": \"cascade\"}}},"
    "  \"Tag\": {\"attributes\": {\"label\": \"string\"}, \"identification\": \"label\"}},"
    " \"mappings\": {"
    "  \"person\": {\"entity\": \"Person\", \"attributes\": {\"id\": \"id\", \"name\": \"name\", \"score\": \"score\","
    "              \"price\": \"price\", \"on\": \"on\", \"at\": \"at\", \"data\": \"data\", \"age\": \"info.age\"},"
    "              \"relationships\": {\"company\": {\"keyPath\": \"company\", \"mapping\": \"company\"},"
    "                                \"tags\": {\"keyPath\": \"tags\", \"mapping\": \"tag\"},"
    "                                \"friends\": {\"keyPath\": \"friend_ids\"}}},"
    "  \"company\": {\"entity\": \"Company\", \"attributes\": {\"id\": \"id\", \"name\": \"name\"}},"
    "  \"tag\": {\"entity\": \"Tag\", \"attributes\": {\"label\": \"@self\"}}},"
    " \"routes\": [{\"entity\": \"Person\", \"method\": \"GET\", \"path\": \"people/:id\"}],"
    " \"responseDescriptors\": ["
    "  {\"mapping\": \"person\", \"method\": \"GET\", \"pathPattern\": \"people\", \"keyPath\": \"people\"},"
    "  {\"mapping\": \"person\", \"method\": \"ANY\", \"pathPattern\": \"people/:id\", \"keyPath\": \"person\"},"
    "  {\"mapping\": \"company\", \"method\": \"GET\", \"pathPattern\": \"companies/:id\", \"statusCodes\": [200, 201]},"
    "  {\"errorMessage\": \"message\", \"keyPath\": \"errors\"}]}";

/* A small graph of the fuzz spec: every attribute type, a company with staff, ordered tags, friends
 * (a payload of the "person" mapping). Imports that name these identities update them. */
static const char *fuzz_people =
    "[{\"id\": 1, \"name\": \"Ada\", \"score\": 9.5, \"price\": \"12345678901234567.89\", \"on\": true,"
    "  \"at\": \"1815-12-10T00:00:00Z\", \"info\": {\"age\": 36}, \"company\": {\"id\": \"c1\", \"name\": \"AE\"},"
    "  \"tags\": [\"math\", \"engines\"], \"friend_ids\": [2]},"
    " {\"id\": 2, \"name\": \"Grace\", \"price\": 5, \"info\": {\"age\": 85}, \"company\": {\"id\": \"c1\"}, \"tags\": [\"cobol\"]},"
    " {\"id\": 3, \"name\": \"caf\\u00e9\", \"data\": {\"k\": [1, 2]}, \"friend_ids\": [1, 2]}]";

/* A promise the library makes, checked in every run. */
#define FUZZ_ASSERT(condition)                                                            \
    do {                                                                                  \
        if (!(condition)) {                                                               \
            fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__, #condition); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

/* Runs the statements with LeakSanitizer ignoring what they allocate: for what a driver keeps
 * between inputs (see the top of this file). */
#define FUZZ_KEEP(...)     \
    do {                   \
        __lsan_disable();  \
        __VA_ARGS__;       \
        __lsan_enable();   \
    } while (0)

/* A status the header declares (not MAPPING_E?). */
static inline int fuzz_known(int rc) { return rc <= 0 && strcmp(mapping_error_name(rc), "MAPPING_E?") != 0; }

/* What every call promises: a declared status; after a failure, mapping_error_last() has that code
 * and a message. */
static inline void fuzz_status(mapping_context *ctx, int rc) {
    FUZZ_ASSERT(fuzz_known(rc));
    if (rc != MAPPING_OK) {
        const mapping_error *error = mapping_error_last(ctx);
        FUZZ_ASSERT(error != NULL && error->code == rc);
        FUZZ_ASSERT(error->message != NULL && error->message[0] != '\0');
    }
}

static inline mapping_context *fuzz_new(const char *spec) {
    mapping_context *ctx = NULL;
    if (mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx) != MAPPING_OK) {
        fprintf(stderr, "a fuzz spec does not load: %s\n", mapping_error_message(NULL));
        abort();
    }
    return ctx;
}

static inline mapping_context *fuzz_context(void) { return fuzz_new(fuzz_spec); }

/* The next part of the input up to a NUL byte (or the end), as a NUL-terminated copy. */
static inline char *fuzz_part(const uint8_t **data, size_t *size) {
    const uint8_t *end = memchr(*data, 0, *size);
    size_t length = end ? (size_t)(end - *data) : *size;
    char *copy = malloc(length + 1);
    if (!copy) abort();
    memcpy(copy, *data, length);
    copy[length] = '\0';
    size_t used = end ? length + 1 : length;
    *data += used;
    *size -= used;
    return copy;
}

/* ---- A graph kept between inputs ---------------------------------------------------------------- */

/* An entity and the mapping that writes its objects out. */
typedef struct fuzz_entity {
    const char *entity;
    const char *mapping;
} fuzz_entity;

static const fuzz_entity fuzz_spec_entities[] = {{"Person", "person"}, {"Company", "company"}, {"Tag", "tag"}, {NULL, NULL}};

#define FUZZ_MAX_ENTITIES 4

/* A context of one spec holding a baseline graph, with what it looked like once made: the count of
 * each entity and the graph as text (fuzz_text). */
typedef struct fuzz_graph {
    const char *spec;
    const fuzz_entity *entities;  /* ends with {NULL, NULL} */
    const char *seed_mapping;     /* the baseline: `seed` imported with `seed_mapping` */
    const char *seed;
    int parser;                   /* MAPPING_PARSER_* */
    mapping_context *ctx;
    size_t counts[FUZZ_MAX_ENTITIES];
    char *text;
    size_t observed;              /* calls of the graph's observer: commits that changed something */
} fuzz_graph;

/* The observer every kept graph has: a commit that changed something calls it. */
static inline void fuzz_graph_observer(mapping_context *ctx, const mapping_changes *changes, void *payload) {
    (void)ctx;
    (void)changes;
    ((fuzz_graph *)payload)->observed++;
}

static inline void fuzz_counts(mapping_context *ctx, const fuzz_entity *entities, size_t *out) {
    for (int i = 0; entities[i].entity; i++) {
        int rc = mapping_entity_count(ctx, entities[i].entity, &out[i]);
        if (rc != MAPPING_OK) fprintf(stderr, "count of %s: %s\n", entities[i].entity, mapping_error_message(ctx));
        FUZZ_ASSERT(rc == MAPPING_OK);
    }
}

/* The graph as text: every object of the first entity written out through its mapping, nulls
 * included, in creation order (the fuzz spec's people carry their company, tags and friends along).
 * With the counts of every entity, enough to tell a graph changed. New: free(). */
static inline char *fuzz_text(mapping_context *ctx, const fuzz_entity *entities) {
    mapping_list *all = NULL;
    FUZZ_ASSERT(mapping_entity_all(ctx, entities[0].entity, &all) == MAPPING_OK);
    char *out = NULL;
    int rc = mapping_list_serialize(ctx, entities[0].mapping, all, MAPPING_SERIALIZE_NULLS | MAPPING_SERIALIZE_NO_ROOT, &out);
    if (rc != MAPPING_OK) fprintf(stderr, "writing out %s: %s\n", entities[0].entity, mapping_error_message(ctx));
    FUZZ_ASSERT(rc == MAPPING_OK && out != NULL);
    mapping_list_free(all);
    char *text = strdup(out);
    if (!text) abort();
    mapping_free(out);
    return text;
}

/* (Re)makes the graph's context and its baseline, out of LeakSanitizer's sight. */
static inline void fuzz_graph_close(fuzz_graph *graph) {
    mapping_context_free(graph->ctx);
    free(graph->text);
    graph->ctx = NULL;
    graph->text = NULL;
}

/* The graphs a driver opened, closed when the process exits (LeakSanitizer then sees no live graph). */
static fuzz_graph *fuzz_open_graphs[4];
static int fuzz_open_graph_count;

static void fuzz_close_open_graphs(void) {
    for (int i = 0; i < fuzz_open_graph_count; i++) fuzz_graph_close(fuzz_open_graphs[i]);
}

/* Opens (or makes again) `graph` on its spec and seed; the first open also registers it to be
 * closed at exit. */
static inline void fuzz_graph_open(fuzz_graph *graph) {
    int known = 0;
    for (int i = 0; i < fuzz_open_graph_count; i++) known |= fuzz_open_graphs[i] == graph;
    if (!known) {
        FUZZ_ASSERT(fuzz_open_graph_count < (int)(sizeof fuzz_open_graphs / sizeof fuzz_open_graphs[0]));
        if (fuzz_open_graph_count == 0) atexit(fuzz_close_open_graphs);
        fuzz_open_graphs[fuzz_open_graph_count++] = graph;
    }
    FUZZ_KEEP({
        mapping_context_free(graph->ctx);
        free(graph->text);
        graph->ctx = fuzz_new(graph->spec);
        FUZZ_ASSERT(mapping_context_set_parser(graph->ctx, graph->parser) == MAPPING_OK);
        if (graph->seed)
            FUZZ_ASSERT(mapping_context_import(graph->ctx, graph->seed_mapping, graph->seed, MAPPING_NUL_TERMINATED, NULL) == MAPPING_OK);
        fuzz_counts(graph->ctx, graph->entities, graph->counts);
        graph->text = fuzz_text(graph->ctx, graph->entities);
        uint64_t token = 0;
        FUZZ_ASSERT(mapping_context_observe(graph->ctx, fuzz_graph_observer, graph, &token) == MAPPING_OK);
        graph->observed = 0;
    });
}

/* Opens `graph` on the fuzz spec, seeded with fuzz_people: the baseline most drivers start from. */
static inline void fuzz_people_graph_open(fuzz_graph *graph) {
    graph->spec = fuzz_spec;
    graph->seed = fuzz_people;
    fuzz_graph_open(graph);
}

/* Whether the graph has its baseline's counts. */
static inline int fuzz_graph_counts_unchanged(const fuzz_graph *graph) {
    size_t now[FUZZ_MAX_ENTITIES];
    fuzz_counts(graph->ctx, graph->entities, now);
    for (int i = 0; graph->entities[i].entity; i++)
        if (now[i] != graph->counts[i]) return 0;
    return 1;
}

/* The graph must be its baseline: the same counts and, when `values`, its objects written out the
 * same (the costly part: left out where nothing can have been changed, as after malformed JSON). */
static inline void fuzz_graph_check(const fuzz_graph *graph, int values) {
    FUZZ_ASSERT(fuzz_graph_counts_unchanged(graph));
    if (!values) return;
    char *now = fuzz_text(graph->ctx, graph->entities);
    if (strcmp(now, graph->text) != 0) fprintf(stderr, "baseline:\n%s\nnow:\n%s\n", graph->text, now);
    FUZZ_ASSERT(strcmp(now, graph->text) == 0);
    free(now);
}

/* Ends an input's change made inside mapping_context_begin(); `rc` is what the change returned, and
 * `values` whether it may have changed values (see fuzz_graph_check).
 * A success is rolled back: the graph must be its baseline again, and no observer called.
 * A failure must leave the graph as the transaction began (all or nothing). Either it rolled the
 * transaction back (the commit that ends it then fails with the failure's own code, saying nothing
 * was committed): the graph must be its baseline. Or it left the transaction open with nothing
 * changed: committing it then changes nothing, so calls no observer (the cheap case, and the common
 * one: most fuzz inputs fail early). */
static inline void fuzz_graph_end(fuzz_graph *graph, int rc, int values) {
    if (rc == MAPPING_OK) {
        FUZZ_ASSERT(mapping_context_rollback(graph->ctx) == MAPPING_OK);
        fuzz_graph_check(graph, values);
    } else {
        int ended = mapping_context_commit(graph->ctx);
        FUZZ_ASSERT(ended == MAPPING_OK || ended == rc);
        if (ended != MAPPING_OK) fuzz_graph_check(graph, values);
    }
    if (graph->observed != 0) fprintf(stderr, "an observer was told of a change: the failed or rolled-back call left one\n");
    FUZZ_ASSERT(graph->observed == 0);
}

/* Ends an input's change made without a transaction: a failure must have changed nothing (and told
 * no observer); a success committed, so the graph is made again. */
static inline void fuzz_graph_after_commit(fuzz_graph *graph, int rc, int values) {
    if (rc != MAPPING_OK) {
        fuzz_graph_check(graph, values);
        FUZZ_ASSERT(graph->observed == 0);
    } else {
        fuzz_graph_open(graph);
    }
}

/* Whether an input runs its change in a transaction that is then rolled back (most inputs: cheap)
 * or as a commit of its own (one in eight: the commit path), from one byte of the input. */
static inline int fuzz_in_transaction(uint8_t byte) { return (byte & 7) != 7; }

#endif
