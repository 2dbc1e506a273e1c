/* The workloads `make bench-check` counts instructions of: 10,000 people (with companies and phones)
 * imported into a fresh context, then imported again over themselves (the update path), on the
 * parser named on the command line; or, given a payload file and a mapping, that payload imported
 * twice the same way (a real API payload, such as GitHub's events); or, given --store and a path that
 * does not exist yet, the people imported into a new SQLite store there, then again (the commit's
 * writes: new rows, then none, as nothing changed); or, given --reopen and such a path, the people
 * imported into a new store there (not counted), the store opened again by a new context, and the
 * people imported once more (counted: every row the payload names read back by identity, with the
 * lists the mapping sets, and nothing written, as nothing changed). The people payload is generated
 * here from a fixed seed, so every run counts the same work; only `measured_import` is counted
 * (callgrind --toggle-collect), so reading or generating the payload and process start-up do not
 * dilute the figure.
 *
 * usage: instructions SPEC jansson|simdjson [PAYLOAD MAPPING | --store PATH | --reopen PATH] */
#include <mapping.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PEOPLE = 10000, COMPANIES = 200 };

static unsigned long long state = 42;

/* A fixed linear congruential sequence (Knuth's MMIX constants): the same payload on every machine. */
static unsigned next(unsigned bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((state >> 33) % bound);
}

static char *payload(size_t *length) {
    static const char *first[] = {"Ada", "Bo", "Cy", "Dee", "Eve", "Finn", "Gus", "Hal", "Ivy", "Jo", "Kai", "Lu"};
    static const char *last[] = {"Smith", "Jones", "Ng", "Garcia", "Kowalski", "Okafor", "Ito", "Novak"};
    static const char *countries[] = {"US", "DE", "FR", "JP", "BR", "IN", "NG", "SE"};
    static const char *kinds[] = {"home", "work", "mobile"};
    size_t capacity = (size_t)PEOPLE * 400 + 64, at = 0;
    char *text = malloc(capacity);
    if (text == NULL) return NULL;
    at += (size_t)snprintf(text + at, capacity - at, "{\"people\":[");
    for (unsigned i = 0; i < PEOPLE; i++) {
        unsigned company = next(COMPANIES);
        const char *given = first[next(12)], *family = last[next(8)];
        at += (size_t)snprintf(text + at, capacity - at,
            "%s{\"id\":%u,\"name\":\"%s %s\",\"email\":\"%s.%s%u@example.com\",\"birthdate\":\"19%02u-%02u-%02u\","
            "\"score\":%u.%03u,\"active\":%s,\"company_id\":%u,\"phones\":[",
            i ? "," : "", i, given, family, given, family, i, 50 + next(50), 1 + next(12), 1 + next(28),
            next(100), next(1000), next(10) < 7 ? "true" : "false", company);
        unsigned phones = next(4);
        for (unsigned p = 0; p < phones; p++) {
            at += (size_t)snprintf(text + at, capacity - at, "%s{\"number\":\"+1-555-%07u\",\"type\":\"%s\"}",
                                   p ? "," : "", i * 4 + p, kinds[next(3)]);
        }
        at += (size_t)snprintf(text + at, capacity - at, "]");
        if (next(10) < 3) {
            at += (size_t)snprintf(text + at, capacity - at, ",\"company\":{\"id\":%u,\"name\":\"Company %u\",\"country\":\"%s\"}",
                                   company, company, countries[company % 8]);
        }
        at += (size_t)snprintf(text + at, capacity - at, "}");
    }
    at += (size_t)snprintf(text + at, capacity - at, "]}");
    *length = at;
    return text;
}

static char *read_file(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (text != NULL && fread(text, 1, (size_t)size, file) == (size_t)size) {
        text[size] = '\0';
    } else {
        free(text);
        text = NULL;
    }
    fclose(file);
    return text;
}

/* The counted region. noinline keeps it a symbol callgrind can toggle on. */
__attribute__((noinline)) static int measured_import(mapping_context *ctx, const char *mapping, const char *json,
                                                      size_t length, int times) {
    int rc = MAPPING_OK;
    for (int i = 0; i < times && rc == MAPPING_OK; i++) rc = mapping_context_import(ctx, mapping, json, length, NULL);
    return rc;
}

/* A store at `path` holding the people, written by a context of its own, closed again. */
static int write_store(const char *spec, const char *path, int parser, const char *json, size_t length) {
    mapping_context *ctx = NULL;
    int rc = mapping_context_open(spec, MAPPING_NUL_TERMINATED, path, MAPPING_OPEN_CREATE, &ctx);
    if (rc == MAPPING_OK) rc = mapping_context_set_parser(ctx, parser);
    if (rc == MAPPING_OK) rc = mapping_context_import(ctx, "person", json, length, NULL);
    if (rc != MAPPING_OK) fprintf(stderr, "writing the store failed: %s\n", mapping_error_message(ctx));
    mapping_context_free(ctx);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: %s SPEC jansson|simdjson [PAYLOAD MAPPING | --store PATH | --reopen PATH]\n", argv[0]);
        return 2;
    }
    int parser = strcmp(argv[2], "simdjson") == 0 ? MAPPING_PARSER_SIMDJSON : MAPPING_PARSER_JANSSON;
    int reopen = argc == 5 && strcmp(argv[3], "--reopen") == 0;
    const char *store = argc == 5 && (reopen || strcmp(argv[3], "--store") == 0) ? argv[4] : NULL;
    int file_payload = argc == 5 && store == NULL;
    char *spec = read_file(argv[1]);
    size_t length = 0;
    char *json = file_payload ? read_file(argv[3]) : payload(&length);
    if (file_payload && json != NULL) length = strlen(json);
    const char *mapping = file_payload ? argv[4] : "person";
    mapping_context *ctx = NULL;
    if (spec == NULL || json == NULL) {
        fprintf(stderr, "cannot read %s or the payload\n", argv[1]);
        return 1;
    }
    int rc = reopen ? write_store(spec, store, parser, json, length) : MAPPING_OK;
    if (rc != MAPPING_OK) return 1;
    rc = store != NULL ? mapping_context_open(spec, MAPPING_NUL_TERMINATED, store, MAPPING_OPEN_CREATE, &ctx)
                           : mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx);
    if (rc == MAPPING_OK) rc = mapping_context_set_parser(ctx, parser);
    if (rc == MAPPING_OK) rc = measured_import(ctx, mapping, json, length, reopen ? 1 : 2);
    if (rc != MAPPING_OK) {
        fprintf(stderr, "import failed: %s\n", ctx != NULL ? mapping_error_message(ctx) : mapping_error_message(NULL));
        return 1;
    }
    mapping_context_free(ctx);
    free(json);
    free(spec);
    return 0;
}
