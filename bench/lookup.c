/* Lookup costs as the graph grows: by identity, by an indexed attribute, and by a full scan, on
 * 10,000 and 1,000,000 objects, in one run. The first two should cost about the same at both sizes;
 * the scan grows with the graph. Prints a Markdown table with the ratios (1M / 10k). */
#include <mapping.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *SPEC =
    "{\"entities\": {\"Item\": {\"attributes\": {\"id\": \"integer\", \"code\": {\"type\": \"integer\", \"indexed\": true},"
    " \"label\": \"string\"}, \"identification\": \"id\"}},"
    " \"mappings\": {\"item\": {\"entity\": \"Item\", \"attributes\": {\"id\": \"id\", \"code\": \"code\", \"label\": \"label\"}}}}";

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void check(mapping_context *ctx, int rc, const char *what) {
    if (rc != MAPPING_OK) {
        fprintf(stderr, "%s failed: %s\n", what, mapping_error_message(ctx));
        exit(1);
    }
}

/* A context holding `count` items, imported in batches of 100,000. */
static mapping_context *graph(long count) {
    mapping_context *ctx = NULL;
    check(NULL, mapping_context_new(SPEC, MAPPING_NUL_TERMINATED, &ctx), "context");
    const long batch = 100000;
    char *payload = malloc((size_t)batch * 64 + 16);
    for (long start = 0; start < count; start += batch) {
        size_t at = 0;
        payload[at++] = '[';
        for (long i = start; i < start + batch && i < count; i++) {
            at += (size_t)sprintf(payload + at, "%s{\"id\":%ld,\"code\":%ld,\"label\":\"item %ld\"}",
                                  i > start ? "," : "", i, i * 7, i);
        }
        payload[at++] = ']';
        check(ctx, mapping_context_import(ctx, "item", payload, at, NULL), "import");
    }
    free(payload);
    return ctx;
}

typedef struct { double identity, indexed, scan; } costs;

static costs measure(mapping_context *ctx, long count) {
    costs result;
    char text[64];
    mapping_object object;
    mapping_list *list;
    unsigned seed = 42;
    const int lookups = 20000, fetches = 5000, scans = 3;

    double started = now();
    for (int i = 0; i < lookups; i++) {
        snprintf(text, sizeof text, "%ld", (long)(rand_r(&seed) % count));
        check(ctx, mapping_entity_find(ctx, "Item", text, &object), "get");
    }
    result.identity = (now() - started) / lookups;

    started = now();
    for (int i = 0; i < fetches; i++) {
        snprintf(text, sizeof text, "[%ld]", (long)(rand_r(&seed) % count) * 7);
        check(ctx, mapping_entity_fetch(ctx, "Item", "code == %@", text, NULL, 0, 0, 0, &list), "indexed fetch");
        if (mapping_list_count(list) != 1) { fprintf(stderr, "indexed fetch found %zu\n", mapping_list_count(list)); exit(1); }
        mapping_list_free(list);
    }
    result.indexed = (now() - started) / fetches;

    started = now();
    for (int i = 0; i < scans; i++) {
        snprintf(text, sizeof text, "[\"item %ld\"]", (long)(rand_r(&seed) % count));
        check(ctx, mapping_entity_fetch(ctx, "Item", "label == %@", text, NULL, 0, 0, 0, &list), "scan");
        mapping_list_free(list);
    }
    result.scan = (now() - started) / scans;
    return result;
}

int main(void) {
    const long small = 10000, large = 1000000;
    mapping_context *a = graph(small), *b = graph(large);
    /* Interleaved rounds; the median of each measure. */
    enum { ROUNDS = 3 };
    costs s[ROUNDS], l[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
        s[round] = measure(a, small);
        l[round] = measure(b, large);
    }
    #define MEDIAN(array, field) ({ double x = array[0].field, y = array[1].field, z = array[2].field; \
        x > y ? (y > z ? y : (x > z ? z : x)) : (x > z ? x : (y > z ? z : y)); })
    double si = MEDIAN(s, identity), li = MEDIAN(l, identity);
    double sx = MEDIAN(s, indexed), lx = MEDIAN(l, indexed);
    double ss = MEDIAN(s, scan), ls = MEDIAN(l, scan);
    printf("| lookup (median of %d interleaved rounds) | 10k objects | 1M objects | 1M / 10k |\n", ROUNDS);
    printf("|---|---|---|---|\n");
    printf("| by identity (`mapping_entity_find`) | %.2f µs | %.2f µs | %.2f× |\n", si * 1e6, li * 1e6, li / si);
    printf("| indexed equality (`code == %%@`) | %.2f µs | %.2f µs | %.2f× |\n", sx * 1e6, lx * 1e6, lx / sx);
    printf("| full scan (`label == %%@`, not indexed) | %.2f ms | %.2f ms | %.1f× |\n", ss * 1e3, ls * 1e3, ls / ss);
    mapping_context_free(a);
    mapping_context_free(b);
    return 0;
}
