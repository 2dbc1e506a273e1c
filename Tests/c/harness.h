/* A minimal test harness for the C suite: EXPECT macros that count, and a closing
 * "N passed, N failed" line. Each check names its file and line when it fails. */
#ifndef TEST_HARNESS_H
#define TEST_HARNESS_H

#include <mapping.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int harness_passed, harness_failed;

#define EXPECT(condition)                                                                        \
    do {                                                                                         \
        if (condition) {                                                                         \
            harness_passed++;                                                                    \
        } else {                                                                                 \
            harness_failed++;                                                                    \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #condition);             \
        }                                                                                        \
    } while (0)

/* Expects `call` to return `code`; on a mismatch prints the status and the context's message. */
#define EXPECT_RC(ctx, code, call)                                                               \
    do {                                                                                         \
        int harness_rc_ = (call);                                                                \
        if (harness_rc_ == (code)) {                                                             \
            harness_passed++;                                                                    \
        } else {                                                                                 \
            harness_failed++;                                                                    \
            fprintf(stderr, "%s:%d: %s returned %s (%s), expected %s\n", __FILE__, __LINE__,     \
                    #call, mapping_error_name(harness_rc_), mapping_error_message(ctx), #code);           \
        }                                                                                        \
    } while (0)

#define EXPECT_OK(ctx, call) EXPECT_RC(ctx, MAPPING_OK, call)

#define EXPECT_STR(actual, expected)                                                             \
    do {                                                                                         \
        const char *harness_a_ = (actual), *harness_e_ = (expected);                             \
        if (harness_a_ && strcmp(harness_a_, harness_e_) == 0) {                                 \
            harness_passed++;                                                                    \
        } else {                                                                                 \
            harness_failed++;                                                                    \
            fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__,        \
                    #actual, harness_a_ ? harness_a_ : "(null)", harness_e_);                    \
        }                                                                                        \
    } while (0)

static inline int harness_finish(const char *suite) {
    printf("%s: %d passed, %d failed\n", suite, harness_passed, harness_failed);
    return harness_failed ? 1 : 0;
}

/* Reads dir/name into a NUL-terminated buffer the caller frees; exits if it cannot. */
static inline char *harness_read(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *file = fopen(path, "rb");
    if (!file) {
        perror(path);
        exit(2);
    }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *data = malloc((size_t)size + 1);
    if (!data || fread(data, 1, (size_t)size, file) != (size_t)size) exit(2);
    fclose(file);
    data[size] = '\0';
    return data;
}

static inline mapping_context *harness_context(const char *dir, const char *spec_name) {
    char *spec = harness_read(dir, spec_name);
    mapping_context *ctx = NULL;
    if (mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx) != MAPPING_OK) {
        fprintf(stderr, "cannot load %s: %s\n", spec_name, mapping_error_message(NULL));
        exit(2);
    }
    free(spec);
    return ctx;
}

#endif
