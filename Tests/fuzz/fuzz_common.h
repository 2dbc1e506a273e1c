/* Shared by the libFuzzer drivers: one spec that exercises every attribute type, identities,
 * relationships with inverses and delete rules, dynamic mappings, routes and response descriptors,
 * and helpers that split a fuzz input into parts. A driver aborts only on a broken promise (a crash
 * or sanitizer report is the fuzzer's own finding). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <mapping.h>
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

static mapping_context *fuzz_context(void) {
    mapping_context *ctx = NULL;
    if (mapping_context_new(fuzz_spec, MAPPING_NUL_TERMINATED, &ctx) != MAPPING_OK) {
        fprintf(stderr, "the fuzz spec does not load: %s\n", mapping_error_message(NULL));
        abort();
    }
    return ctx;
}

/* The next part of the input up to a NUL byte (or the end), as a NUL-terminated copy. */
static char *fuzz_part(const uint8_t **data, size_t *size) {
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

/* A promise the library makes, checked in every run. */
#define FUZZ_ASSERT(condition)                                                            \
    do {                                                                                  \
        if (!(condition)) {                                                               \
            fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__, #condition); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

#endif
