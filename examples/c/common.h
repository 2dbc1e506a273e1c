/* Helpers shared by the C examples: error checking and file reading, kept out of the way. */
#ifndef EXAMPLES_COMMON_H
#define EXAMPLES_COMMON_H

#include <mapping.h>
#include <stdio.h>
#include <stdlib.h>

/* Runs a libmapping call; on failure prints where, the status name and the context's message, and
 * exits. `ctx` may be NULL for calls that have no context yet (mapping_context_new). */
#define CHECK_MAPPING(ctx, call)                                                                   \
    do {                                                                                           \
        int check_rc_ = (call);                                                                    \
        if (check_rc_ != MAPPING_OK) {                                                             \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,              \
                    mapping_error_name(check_rc_), mapping_error_message(ctx));                             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Reads a whole file into a NUL-terminated buffer the caller frees; exits on failure. */
static inline char *read_file(const char *dir, const char *name, size_t *length) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *file = fopen(path, "rb");
    if (!file) {
        perror(path);
        exit(1);
    }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *data = malloc((size_t)size + 1);
    if (!data || fread(data, 1, (size_t)size, file) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fclose(file);
    data[size] = '\0';
    if (length) *length = (size_t)size;
    return data;
}

/* The examples' data folder: the first argument, else examples/data (run from the repository). */
static inline const char *data_dir(int argc, char **argv) { return argc > 1 ? argv[1] : "examples/data"; }

/* Creates a context from a spec file in the data folder; exits on failure. */
static inline mapping_context *open_context(const char *dir, const char *spec_name) {
    size_t length;
    char *spec = read_file(dir, spec_name, &length);
    mapping_context *ctx = NULL;
    CHECK_MAPPING(NULL, mapping_context_new(spec, length, &ctx));
    free(spec);
    return ctx;
}

/* Imports the bundled GitHub events (as 01_import shows step by step); returns the top-level events,
 * which the caller frees with mapping_list_free. `length`, if not NULL, receives the payload's size. */
static inline mapping_list *import_events(mapping_context *ctx, const char *dir, size_t *length) {
    size_t size;
    char *payload = read_file(dir, "github_events.json", &size);
    mapping_list *events = NULL;
    CHECK_MAPPING(ctx, mapping_context_import(ctx, "event", payload, size, &events));
    free(payload);
    if (length) *length = size;
    return events;
}

#endif
