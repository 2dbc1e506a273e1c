/* Observers and watched fetches, as a program run on one context. The input is a sequence of steps,
 * each an opcode byte and its argument bytes: register an observer or a watch, unobserve one (or a
 * token never given out), import people (commits), begin/commit/rollback, delete, set, relate,
 * read, free the context. Each observer and watch is given a slice of the input as its own program:
 * every time it is called it reads the change it is lent and then runs a few steps of that slice,
 * so callbacks unobserve themselves and others, register more, import, open and end transactions.
 *
 * Bounds, so that an input always ends: at most MAX_STEPS steps per input, SUB_STEPS per call, and
 * after CHANGING_CALLS callbacks the callbacks only read (an observer that changes the graph on every
 * call would otherwise make commits forever). 16 changing calls cover as many edges as 64 did over the
 * corpus and make an input three times quicker (cascades of 64 made most inputs their longest).
 *
 * Promises: every call returns a declared status; an observer or watch whose unobserve returned
 * MAPPING_OK is never called again, nor one of an earlier input (all were unobserved at its end), nor
 * any after the context was freed; a callback gets the context it was registered on, may read it,
 * and is lent a change that is not empty; a change's accessors answer for every index it counts; a
 * watch's positions lie within its results, and its counts add up with the results it had; after the
 * context is freed every call on it returns MAPPING_EMISUSE. */
#include "fuzz_common.h"

#define MAX_STEPS 256
#define SUB_STEPS 4
#define CHANGING_CALLS 16
#define MAX_REGISTRATIONS 32

typedef struct registration {
    uint64_t token;
    int watch;
    int removed;        /* its unobserve returned MAPPING_OK */
    size_t start;       /* its program: `length` bytes of the input from `start`, read from `cursor` on */
    size_t length;
    size_t cursor;
    int known;          /* a watch: whether `last` is the count of the results it was last given */
    size_t last;
} registration;

static struct {
    mapping_context *ctx;
    int freed;          /* the context was freed during this input */
    const uint8_t *data;
    size_t size;
    unsigned serial;    /* which input this is: payloads carry it */
    registration registrations[MAX_REGISTRATIONS];
    int count;
    int steps;
    int calls;
} run;

static void cleanup(void) { mapping_context_free(run.ctx); }

static void never_called(mapping_context *ctx, const mapping_fetch_change *change, void *payload) {
    (void)ctx;
    (void)change;
    (void)payload;
    FUZZ_ASSERT(0);  /* removed before any commit */
}

/* A new context, with a watch registered and removed once. Swift keeps an object's weak
 * references in a side table made with the first one and freed with the object, and the object's
 * reference count points to it in a form LeakSanitizer cannot follow: made during an input (the
 * first watch on a context made at the end of the input before), it was reported as that input's
 * leak (found by fuzzing; it could not happen alone). */
static mapping_context *fresh_context(void) {
    mapping_context *ctx = fuzz_context();
    uint64_t token = 0;
    FUZZ_ASSERT(mapping_context_watch(ctx, "Person", NULL, NULL, NULL, 0, never_called, NULL, &token) == MAPPING_OK);
    FUZZ_ASSERT(mapping_context_unobserve(ctx, token) == MAPPING_OK);
    return ctx;
}

/* FUZZ_OBSERVE_TRACE=1 prints each step and call, to read what a finding's input does. */
static int tracing = -1;
#define TRACE(...)                                                                 \
    do {                                                                           \
        if (tracing < 0) tracing = getenv("FUZZ_OBSERVE_TRACE") != NULL;            \
        if (tracing) fprintf(stderr, __VA_ARGS__);                                 \
    } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    FUZZ_KEEP(run.ctx = fresh_context());
    atexit(cleanup);
    return 0;
}

/* A program: the main one reads the input once; a callback's reads its slice round and round. */
typedef struct program {
    const uint8_t *data;
    size_t length;
    size_t *cursor;
    int wraps;
} program;

static uint8_t next(program *p) {
    if (p->length == 0) return 0;
    if (*p->cursor >= p->length) {
        if (!p->wraps) return 0;
        *p->cursor = 0;
    }
    return p->data[(*p->cursor)++];
}

static int done(const program *p) { return !p->wraps && *p->cursor >= p->length; }

/* A call's status: declared, and described after a failure. A call made once the context was freed
 * returns MAPPING_EMISUSE; one during which a callback freed it returns whatever it did. */
static int check_at(int rc, int freed_before, int line) {
    TRACE("    line %d: %s\n", line, mapping_error_name(rc));
    if (freed_before) {
        if (rc != MAPPING_EMISUSE) fprintf(stderr, "line %d: %s after the context was freed\n", line, mapping_error_name(rc));
        FUZZ_ASSERT(rc == MAPPING_EMISUSE);
    } else if (run.freed) {
        FUZZ_ASSERT(fuzz_known(rc));
    } else {
        fuzz_status(run.ctx, rc);
    }
    return rc;
}

#define check(call)                          \
    __extension__({                          \
        int freed_before_ = run.freed;       \
        int rc_ = (call);                    \
        check_at(rc_, freed_before_, __LINE__); \
    })


static void steps(program *p, int limit, registration *self);

/* ---- Callbacks -------------------------------------------------------------------------------- */

static void *payload_of(int index) { return (void *)(uintptr_t)(((uintptr_t)run.serial << 8) | (uintptr_t)index); }

/* The registration a callback is for, after checking it may be called at all. */
static registration *called(mapping_context *ctx, void *payload) {
    uintptr_t value = (uintptr_t)payload;
    unsigned serial = (unsigned)(value >> 8);
    int index = (int)(value & 0xff);
    if (serial != run.serial) fprintf(stderr, "a callback of input %u called during input %u\n", serial, run.serial);
    FUZZ_ASSERT(serial == run.serial);  /* every registration of an earlier input was unobserved */
    FUZZ_ASSERT(!run.freed);            /* nothing is called once the context is freed */
    if (index == MAX_REGISTRATIONS) fprintf(stderr, "an observer unobserved as soon as it was registered was called\n");
    FUZZ_ASSERT(index < run.count);
    registration *r = &run.registrations[index];
    TRACE("  call of %s %d\n", r->watch ? "watch" : "observer", index);
    if (r->removed) fprintf(stderr, "%s %d (token %llu) called after its unobserve returned MAPPING_OK\n",
                            r->watch ? "watch" : "observer", index, (unsigned long long)r->token);
    FUZZ_ASSERT(!r->removed);
    FUZZ_ASSERT(ctx == run.ctx);
    size_t people = 0;
    FUZZ_ASSERT(mapping_entity_count(ctx, "Person", &people) == MAPPING_OK);  /* a callback may read */
    return r;
}

/* Runs a few steps of the registration's own program, while callbacks may still change things. */
static void react(registration *r) {
    if (++run.calls > CHANGING_CALLS || r->length == 0) return;
    program p = {run.data + r->start, r->length, &r->cursor, 1};
    steps(&p, SUB_STEPS, r);
}

static void observer(mapping_context *ctx, const mapping_changes *changes, void *payload) {
    registration *r = called(ctx, payload);
    size_t total = 0;
    for (int kind = MAPPING_CHANGE_INSERTED; kind <= MAPPING_CHANGE_DELETED; kind++) {
        size_t count = 0;
        FUZZ_ASSERT(mapping_changes_count(changes, kind, &count) == MAPPING_OK);
        total += count;
        for (size_t i = 0; i < count && i < 16; i++) {
            const char *entity = NULL;
            FUZZ_ASSERT(mapping_changes_entity(changes, kind, i, &entity) == MAPPING_OK && entity != NULL);
            mapping_object object = MAPPING_NO_OBJECT;
            int rc = mapping_changes_object(changes, kind, i, &object);
            if (kind == MAPPING_CHANGE_DELETED) {
                FUZZ_ASSERT(rc == MAPPING_ESTALE);
                const char *identity = NULL;
                FUZZ_ASSERT(mapping_changes_identity(changes, i, &identity) == MAPPING_OK && identity != NULL);
            } else {
                FUZZ_ASSERT(rc == MAPPING_OK);
                /* Live, or deleted by a commit made since (calls are delivered in commit order). */
                rc = mapping_object_check(ctx, object);
                FUZZ_ASSERT(rc == MAPPING_OK || rc == MAPPING_ESTALE);
            }
            if (kind == MAPPING_CHANGE_UPDATED) {
                const char *names = NULL;
                FUZZ_ASSERT(mapping_changes_changed(changes, i, &names) == MAPPING_OK && names != NULL && names[0] == '[');
            }
        }
        mapping_object object = MAPPING_NO_OBJECT;
        const char *entity = NULL;
        FUZZ_ASSERT(mapping_changes_object(changes, kind, count, &object) != MAPPING_OK);
        FUZZ_ASSERT(mapping_changes_entity(changes, kind, count, &entity) == MAPPING_ERANGE);
    }
    FUZZ_ASSERT(total > 0);  /* a commit that changed nothing calls no observer */
    react(r);
}

static void watcher(mapping_context *ctx, const mapping_fetch_change *change, void *payload) {
    registration *r = called(ctx, payload);
    FUZZ_ASSERT(r->watch);
    mapping_list *results = NULL;
    FUZZ_ASSERT(mapping_fetch_change_results(change, &results) == MAPPING_OK);
    size_t now = mapping_list_count(results);
    mapping_list_free(results);
    size_t counts[5] = {0}, total = 0;
    for (int kind = MAPPING_POSITION_REMOVED; kind <= MAPPING_POSITION_MOVED; kind++) {
        FUZZ_ASSERT(mapping_fetch_change_count(change, kind, &counts[kind]) == MAPPING_OK);
        total += counts[kind];
        size_t previous = 0;
        for (size_t i = 0; i < counts[kind] && i < 64; i++) {
            size_t position = 0, from = 0;
            FUZZ_ASSERT(mapping_fetch_change_position(change, kind, i, &position, &from) == MAPPING_OK);
            if (i > 0) FUZZ_ASSERT(position > previous);  /* ascending */
            previous = position;
            if (kind == MAPPING_POSITION_REMOVED) {
                if (r->known) FUZZ_ASSERT(position < r->last);
            } else {
                FUZZ_ASSERT(position < now);
            }
            if (kind == MAPPING_POSITION_MOVED && r->known) FUZZ_ASSERT(from < r->last);
        }
        size_t position = 0;
        FUZZ_ASSERT(mapping_fetch_change_position(change, kind, counts[kind], &position, NULL) != MAPPING_OK);
    }
    FUZZ_ASSERT(total > 0);  /* called only when the results changed or one of them was updated */
    if (r->known) {
        if (r->last - counts[MAPPING_POSITION_REMOVED] + counts[MAPPING_POSITION_INSERTED] != now)
            fprintf(stderr, "watch had %zu results, %zu removed, %zu inserted, now %zu\n", r->last,
                    counts[MAPPING_POSITION_REMOVED], counts[MAPPING_POSITION_INSERTED], now);
        FUZZ_ASSERT(r->last - counts[MAPPING_POSITION_REMOVED] + counts[MAPPING_POSITION_INSERTED] == now);
    }
    r->known = 1;
    r->last = now;
    react(r);
}

/* ---- Steps ---------------------------------------------------------------------------------------- */

static void add_registration(program *p, int watch) {
    if (run.count == MAX_REGISTRATIONS) return;
    registration *r = &run.registrations[run.count];
    memset(r, 0, sizeof *r);
    r->watch = watch;
    r->start = run.size ? (size_t)next(p) * run.size / 256 : 0;
    r->length = next(p) % 32;
    if (r->start + r->length > run.size) r->length = run.size - r->start;
    int rc;
    if (watch) {
        static const char *requests[][3] = {
            {"Person", NULL, NULL}, {"Person", "age > 30", "-age,name"}, {"Person", "name BEGINSWITH 'n1'", "name"},
            {"Person", "company.id == 'c1'", NULL}, {"Person", "ANY tags.label == 't1'", "id"}, {"Company", "staff.@count > 1", NULL},
            {"Company", NULL, "id"}, {"Tag", "label != 't2'", "label"}};
        const char **request = requests[next(p) % 8];
        rc = check(mapping_context_watch(run.ctx, request[0], request[1], NULL, request[2], 0, watcher, payload_of(run.count), &r->token));
        FUZZ_ASSERT(rc == MAPPING_OK || rc == MAPPING_EMISUSE);  /* every request here is valid */
    } else {
        rc = check(mapping_context_observe(run.ctx, observer, payload_of(run.count), &r->token));
    }
    if (rc == MAPPING_OK) {
        TRACE("    registered %s %d (token %llu), program %zu+%zu\n", watch ? "watch" : "observer", run.count,
              (unsigned long long)r->token, r->start, r->length);
        run.count++;
    }
}

static void unobserve(registration *r) {
    int rc = check(mapping_context_unobserve(run.ctx, r->token));
    if (run.freed) return;
    if (r->removed) FUZZ_ASSERT(rc == MAPPING_ENOTFOUND);  /* already removed */
    else FUZZ_ASSERT(rc == MAPPING_OK);
    r->removed = 1;
}

static void import(program *p) {
    uint8_t a = next(p), b = next(p), c = next(p);
    char json[400];
    switch (a % 6) {
    case 0:  /* a person, with a company and tags */
        snprintf(json, sizeof json,
                 "{\"id\": %d, \"name\": \"n%d\", \"info\": {\"age\": %d}, \"company\": {\"id\": \"c%d\"}, \"tags\": [\"t%d\", \"t%d\"]}",
                 b % 8, c % 4, b / 4, c % 3, b % 4, c % 4);
        break;
    case 1:  /* two people, friends */
        snprintf(json, sizeof json, "[{\"id\": %d, \"name\": \"n%d\", \"friend_ids\": [%d]}, {\"id\": %d, \"info\": {\"age\": %d}}]",
                 b % 8, c % 4, c % 8, c % 8, b);
        break;
    case 2:  /* the same again: a commit that changes nothing calls no one */
        snprintf(json, sizeof json, "{\"id\": %d}", b % 8);
        break;
    case 3:  /* a person leaving their company */
        snprintf(json, sizeof json, "{\"id\": %d, \"company\": null, \"tags\": []}", b % 8);
        break;
    case 4:  /* fails: changes nothing, calls no one */
        snprintf(json, sizeof json, "[{\"id\": %d, \"name\": \"x\"}, {\"id\": \"not a number\"}]", b % 8);
        break;
    default:  /* a company with staff */
        snprintf(json, sizeof json, "{\"id\": %d, \"company\": {\"id\": \"c%d\", \"name\": \"C%d\"}}", b % 8, c % 3, b % 5);
        break;
    }
    if (a & 0x80) {  /* as a chunked import: one commit at its end */
        char array[420];
        snprintf(array, sizeof array, json[0] == '[' ? "%s" : "[%s]", json);
        check(mapping_context_import_chunked(run.ctx, "person", array, strlen(array), MAPPING_CHUNKS_ARRAY, 1, NULL, NULL));
    } else {
        check(mapping_context_import(run.ctx, "person", json, MAPPING_NUL_TERMINATED, NULL));
    }
}

static mapping_object find_person(uint8_t id) {
    char identity[8];
    snprintf(identity, sizeof identity, "%d", id % 8);
    mapping_object object = MAPPING_NO_OBJECT;
    int rc = check(mapping_entity_find(run.ctx, "Person", identity, &object));
    FUZZ_ASSERT(rc == MAPPING_OK || rc == MAPPING_ENOTFOUND || rc == MAPPING_EMISUSE);
    return object;
}

static void steps(program *p, int limit, registration *self) {
    for (int n = 0; n < limit && !done(p) && run.steps < MAX_STEPS; n++) {
        run.steps++;
        uint8_t op = next(p);
        TRACE("%sstep %d: op %d\n", self ? "    " : "", run.steps, op % 20);
        switch (op % 20) {
        case 0:
        case 1:
            add_registration(p, op % 20);
            break;
        case 2: {
            uint8_t which = next(p);
            if (run.count > 0) unobserve(&run.registrations[which % run.count]);
            break;
        }
        case 3:  /* a token never given out */
            if (check(mapping_context_unobserve(run.ctx, ((uint64_t)1 << 40) + next(p))) != MAPPING_EMISUSE)
                FUZZ_ASSERT(mapping_error_last(run.ctx)->code == MAPPING_ENOTFOUND);
            break;
        case 4:
        case 5:
        case 6:
            import(p);
            break;
        case 7:
            check(mapping_context_begin(run.ctx));
            break;
        case 8:
            check(mapping_context_commit(run.ctx));
            break;
        case 9:
            check(mapping_context_rollback(run.ctx));
            break;
        case 10: {  /* a person deleted, or a company with its staff (cascade) */
            uint8_t which = next(p);
            if (which & 1) {
                char identity[8];
                snprintf(identity, sizeof identity, "\"c%d\"", (which >> 1) % 3);
                mapping_object company = MAPPING_NO_OBJECT;
                if (check(mapping_entity_find(run.ctx, "Company", identity, &company)) == MAPPING_OK)
                    check(mapping_object_delete(run.ctx, company));
            } else {
                mapping_object person = find_person(which >> 1);
                if (person != MAPPING_NO_OBJECT) check(mapping_object_delete(run.ctx, person));
            }
            break;
        }
        case 11: {
            mapping_object person = find_person(next(p));
            char value[16];
            snprintf(value, sizeof value, "%d", next(p));
            if (person != MAPPING_NO_OBJECT) check(mapping_object_set(run.ctx, person, next(p) & 1 ? "age" : "score", value));
            break;
        }
        case 12: {  /* a tag added to a person, or its company cleared */
            mapping_object person = find_person(next(p));
            uint8_t which = next(p);
            if (person == MAPPING_NO_OBJECT) break;
            if (which & 1) {
                check(mapping_object_set_related(run.ctx, person, "company", MAPPING_NO_OBJECT));
            } else {
                char label[16];
                snprintf(label, sizeof label, "\"t%d\"", (which >> 1) % 4);
                mapping_object tag = MAPPING_NO_OBJECT;
                if (check(mapping_entity_find(run.ctx, "Tag", label, &tag)) == MAPPING_OK)
                    check(mapping_object_add_related(run.ctx, person, "tags", tag, 0));
            }
            break;
        }
        case 13: {
            mapping_list *list = NULL;
            check(mapping_entity_fetch(run.ctx, "Person", "age > 10", NULL, "-age", 0, 0, 0, &list));
            mapping_list_free(list);
            size_t count = 0;
            check(mapping_entity_count(run.ctx, "Company", &count));
            break;
        }
        case 14:  /* the context freed (rarely: a callback doing it is the case that matters) */
            if (next(p) % 8 == 0 && !run.freed) {
                mapping_context_free(run.ctx);
                run.freed = 1;
                mapping_context_free(run.ctx);  /* freeing again is a no-op */
            }
            break;
        case 15:
            if (self) unobserve(self);
            break;
        case 16: {  /* registered and removed at once */
            uint64_t token = 0;
            if (check(mapping_context_observe(run.ctx, observer, payload_of(MAX_REGISTRATIONS), &token)) == MAPPING_OK)
                FUZZ_ASSERT(mapping_context_unobserve(run.ctx, token) == MAPPING_OK);
            break;
        }
        case 17: {
            char json[40];
            snprintf(json, sizeof json, "{\"label\": \"t%d\"}", next(p) % 6);
            mapping_object tag = MAPPING_NO_OBJECT;
            check(mapping_object_create(run.ctx, "Tag", json, &tag));
            break;
        }
        case 18: {  /* several changes in one transaction of their own */
            if (check(mapping_context_begin(run.ctx)) != MAPPING_OK) break;
            import(p);
            import(p);
            check(mapping_context_commit(run.ctx));
            break;
        }
        default: {  /* a refresh: nothing for a store-less context */
            check(mapping_context_refresh(run.ctx));
            break;
        }
        }
    }
}

/* ---- One input ------------------------------------------------------------------------------------ */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    run.serial++;
    run.data = data;
    run.size = size;
    run.count = 0;
    run.steps = 0;
    run.calls = 0;
    size_t cursor = 0;
    program main = {data, size, &cursor, 0};
    steps(&main, MAX_STEPS, NULL);

    if (run.freed) {
        FUZZ_KEEP(run.ctx = fresh_context());
        run.freed = 0;
        return 0;
    }
    /* Back to an empty graph with no one listening: a transaction left open rolled back, every
     * registration removed (each unobserve must find it), every object deleted. */
    int rc = mapping_context_rollback(run.ctx);
    FUZZ_ASSERT(rc == MAPPING_OK || rc == MAPPING_EMISUSE);
    for (int i = 0; i < run.count; i++)
        if (!run.registrations[i].removed) unobserve(&run.registrations[i]);
    const fuzz_entity *entity = fuzz_spec_entities;
    for (; entity->entity; entity++) {
        mapping_import_options options = MAPPING_IMPORT_OPTIONS_INIT;
        options.orphan_entity = entity->entity;  /* an empty import that touches nothing: all are orphans */
        FUZZ_ASSERT(mapping_context_import_with(run.ctx, &entity->mapping, 1, "[]", 2, &options, NULL) == MAPPING_OK);
        size_t count = 1;
        FUZZ_ASSERT(mapping_entity_count(run.ctx, entity->entity, &count) == MAPPING_OK && count == 0);
    }
    return 0;
}
