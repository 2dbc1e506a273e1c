#ifndef CJANSSON_ARENA_H
#define CJANSSON_ARENA_H
/* Parsing with jansson into an arena: every allocation jansson makes while it parses one payload is
 * taken from a few large blocks, and the whole tree is let go by freeing those blocks, with no walk
 * of the tree and no call to free per node (for a typical payload, jansson's malloc and free cost
 * as much as its parse).
 *
 * jansson has one pair of allocation functions per process. The first arena parse installs a pair
 * that serves the arena on the thread parsing and forwards every other call to the pair installed
 * before it, so other users of jansson in the process (and objects they made earlier) are served as
 * before. If someone installs another pair later, arena parses notice it and parse as jansson does
 * by default (the caller then releases the tree with json_decref). */
#include <jansson.h>
#include <stddef.h>

typedef struct cjansson_arena cjansson_arena;

/* json_loadb into a new arena. On success returns the tree and sets *arena to the arena that holds
 * it (release both with cjansson_arena_free, never json_decref), or to NULL when the parse used
 * jansson's allocation functions as they are (release the tree with json_decref). On failure
 * returns NULL, fills *error as json_loadb does, and *arena is NULL. */
json_t *cjansson_arena_loadb(const char *buffer, size_t length, size_t flags, json_error_t *error,
                             cjansson_arena **arena);

/* Frees an arena and every node in it. NULL is ignored. */
void cjansson_arena_free(cjansson_arena *arena);

#endif
