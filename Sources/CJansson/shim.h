#ifndef CJANSSON_SHIM_H
#define CJANSSON_SHIM_H
/* jansson's type tests and iteration are macros, which Swift cannot call; these inline
 * functions give them a callable form. Nothing here allocates or keeps state. */
#include <jansson.h>

/* The node's json_type as an int, or -1 for NULL. */
static inline int cjansson_type(const json_t *json) { return json ? (int)json_typeof(json) : -1; }

/* Releases one reference (json_decref is an inline function with a side effect on refcount). */
static inline void cjansson_decref(json_t *json) { json_decref(json); }

/* The flags the importer parses with: any top-level value, NUL allowed inside strings. */
static inline size_t cjansson_decode_flags(void) { return JSON_DECODE_ANY | JSON_ALLOW_NUL; }

/* 1 if the parse failed because the text nests deeper than jansson's limit (2,048 levels). */
static inline int cjansson_error_is_depth(const json_error_t *error) {
    return json_error_code(error) == json_error_stack_overflow;
}

/* 1 if the text ended before its value did (the rest of it is what is missing). */
static inline int cjansson_error_ends_too_soon(const json_error_t *error) {
    return json_error_code(error) == json_error_premature_end_of_input;
}

/* 1 if the parse failed because memory ran out. */
static inline int cjansson_error_is_memory(const json_error_t *error) {
    return json_error_code(error) == json_error_out_of_memory;
}

/* Pieces of json_error_t, so Swift need not read its fixed-size text array as a tuple. */
static inline const char *cjansson_error_text(const json_error_t *error) { return error->text; }

#endif
