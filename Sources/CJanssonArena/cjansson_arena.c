#include "cjansson_arena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* One block of an arena; its bytes follow the header. */
typedef struct block {
    struct block *next;
    size_t size;
} block;

struct cjansson_arena {
    block *blocks;      /* the newest first: allocations come from it */
    size_t next_size;   /* the size of the next block (doubles, up to MAX_BLOCK) */
    /* The newest block's bytes from `start`, free from `cursor` to `limit` (all NULL before the
     * first block): an allocation is a comparison and an addition, with no block header to read. */
    char *start, *cursor, *limit;
};

enum { ALIGN = 16, MIN_BLOCK = 4096, MAX_BLOCK = 1 << 30 };

/* The arena of the parse running on this thread, if any. */
static _Thread_local cjansson_arena *active;
static json_malloc_t forward_malloc = malloc;
static json_free_t forward_free = free;
static pthread_once_t installed = PTHREAD_ONCE_INIT;

static size_t header_size(void) { return (sizeof(block) + ALIGN - 1) & ~(size_t)(ALIGN - 1); }

/* A new block of at least `size` usable bytes, or NULL. */
static block *add_block(cjansson_arena *arena, size_t size) {
    size_t usable = arena->next_size > size ? arena->next_size : size;
    if (usable > SIZE_MAX - header_size()) return NULL;
    block *fresh = forward_malloc(header_size() + usable);
    if (fresh == NULL) return NULL;
    fresh->next = arena->blocks;
    fresh->size = usable;
    arena->blocks = fresh;
    if (arena->next_size < MAX_BLOCK) arena->next_size *= 2;
    return fresh;
}

/* An allocation that needs a new block: out of line, so that the common path saves no registers. */
static __attribute__((noinline)) void *allocate_in_new_block(cjansson_arena *arena, size_t size) {
    if (size > SIZE_MAX - ALIGN) return NULL;
    size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    block *fresh = add_block(arena, size);
    if (fresh == NULL) return NULL;
    char *start = (char *)fresh + header_size();
    arena->start = start;
    arena->cursor = start + size;
    arena->limit = start + fresh->size;
    return start;
}

static void *arena_malloc(size_t size) {
    cjansson_arena *arena = active;
    if (arena == NULL) return forward_malloc(size);
    size_t rounded = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    /* A size so large that rounding wrapped, or one the block has no room for: the slow path
     * (which refuses the first). */
    if (rounded < size || (size_t)(arena->limit - arena->cursor) < rounded) return allocate_in_new_block(arena, size);
    char *at = arena->cursor;
    arena->cursor = at + rounded;
    return at;
}

/* Whether `pointer` lies in one of the arena's blocks. */
static int holds(const cjansson_arena *arena, const void *pointer) {
    uintptr_t address = (uintptr_t)pointer;
    for (const block *each = arena->blocks; each != NULL; each = each->next) {
        uintptr_t start = (uintptr_t)each + header_size();
        if (address >= start && address - start < each->size) return 1;
    }
    return 0;
}

/* Memory jansson frees while it parses (a buffer it outgrew, a key it copied) stays in the arena
 * until the arena goes: a parse frees little next to what it keeps. */
static void arena_free(void *pointer) {
    if (pointer == NULL) return;
    cjansson_arena *arena = active;
    if (arena != NULL) {
        /* Most frees are of the newest block's memory (the key jansson copied a moment ago): two
         * comparisons; the other blocks are walked only for the rest. */
        uintptr_t address = (uintptr_t)pointer;
        if (address >= (uintptr_t)arena->start && address < (uintptr_t)arena->limit) return;
        if (holds(arena, pointer)) return;
    }
    forward_free(pointer);
}

static void install(void) {
    json_malloc_t current_malloc = NULL;
    json_free_t current_free = NULL;
    json_get_alloc_funcs(&current_malloc, &current_free);
    if (current_malloc != NULL && current_free != NULL) {
        forward_malloc = current_malloc;
        forward_free = current_free;
    }
    json_set_alloc_funcs(arena_malloc, arena_free);
}

/* Whether jansson allocates through this file's functions now. */
static int ours(void) {
    json_malloc_t current_malloc = NULL;
    json_free_t current_free = NULL;
    json_get_alloc_funcs(&current_malloc, &current_free);
    return current_malloc == arena_malloc && current_free == arena_free;
}

json_t *cjansson_arena_loadb(const char *buffer, size_t length, size_t flags, json_error_t *error,
                             cjansson_arena **arena) {
    *arena = NULL;
    pthread_once(&installed, install);
    cjansson_arena *made = ours() && active == NULL ? forward_malloc(sizeof *made) : NULL;
    if (made == NULL) return json_loadb(buffer, length, flags, error);
    made->blocks = NULL;
    made->start = made->cursor = made->limit = NULL;
    /* The first block holds a typical tree: jansson's nodes take a few times the text. */
    size_t first = length < (MAX_BLOCK / 4) ? length * 4 : MAX_BLOCK;
    made->next_size = first < MIN_BLOCK ? MIN_BLOCK : first;
    active = made;
    json_t *root = json_loadb(buffer, length, flags, error);
    active = NULL;
    if (root == NULL) {
        cjansson_arena_free(made);
        return NULL;
    }
    *arena = made;
    return root;
}

void cjansson_arena_free(cjansson_arena *arena) {
    if (arena == NULL) return;
    block *each = arena->blocks;
    while (each != NULL) {
        block *next = each->next;
        forward_free(each);
        each = next;
    }
    forward_free(arena);
}
