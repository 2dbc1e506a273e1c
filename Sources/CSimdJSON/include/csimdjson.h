#ifndef CSIMDJSON_H
#define CSIMDJSON_H
/* A plain C face over simdjson's DOM parser, for the importer's fast backend. Only this target
 * sees C++; Swift reads the parsed document's tape directly (see TapeReader.swift). */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct csimdjson_parser csimdjson_parser;

/* Exported from libmapping-simdjson.so (built with hidden visibility, so simdjson's own symbols stay
 * inside it): the loader in libmapping.so finds these with dlsym. */
#define CSIMDJSON_EXPORT __attribute__((visibility("default")))

/* A parsed document: the tape (64-bit words, simdjson's documented tape format) and the string
 * buffer its string words point into. Valid until the parser's next parse or its release. */
typedef struct csimdjson_document {
    const uint64_t *tape;
    size_t tape_length;      /* words on the tape, root words included */
    const uint8_t *strings;
} csimdjson_document;

#define CSIMDJSON_OK 0
#define CSIMDJSON_ERROR 1      /* simdjson rejected the text; ask jansson where and why */
#define CSIMDJSON_DIFFERENT 2  /* valid, but holds what jansson rejects (an integer beyond int64) or
                                  reads differently ("\u0000", refused by jansson in keys): jansson decides */

/* The version of this interface (the functions below and csimdjson_document's layout). The loader
 * refuses a plugin of another version: one left from another libmapping on the search path. */
#define CSIMDJSON_ABI_VERSION 1
CSIMDJSON_EXPORT int csimdjson_abi_version(void);

/* A parser that keeps its buffers between parses; NULL when memory is short. */
CSIMDJSON_EXPORT csimdjson_parser *csimdjson_parser_new(void);
CSIMDJSON_EXPORT void csimdjson_parser_free(csimdjson_parser *parser);

/* Parses `len` bytes (copied into a padded buffer, so `bytes` needs no padding). */
CSIMDJSON_EXPORT int csimdjson_parse(csimdjson_parser *parser, const char *bytes, size_t len, csimdjson_document *out);

/* The largest document, in bytes, the parser's buffers currently fit (they grow, never shrink). */
CSIMDJSON_EXPORT size_t csimdjson_parser_capacity(const csimdjson_parser *parser);

/* simdjson's words for the last failed parse of `parser` ("" if none). */
CSIMDJSON_EXPORT const char *csimdjson_last_error(const csimdjson_parser *parser);

#ifdef __cplusplus
}
#endif
#endif
