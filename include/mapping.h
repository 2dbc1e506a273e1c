/*
 * mapping.h — the public C API of libmapping.
 *
 * libmapping maps JSON from web APIs into a live, in-memory object graph: typed entities, one object
 * per identity, relationships with inverses. A declarative mapping spec (JSON) describes the model
 * and how payloads map onto it; docs/spec-format.md describes the spec format.
 *
 * This header is the contract: what is not declared here is not public API.
 *
 * Conventions
 *   - Every function is named `mapping_<object>_<verb>` (libgit2's rule): the object is what the
 *     function acts on — context, object, list, entity, changes, fetch_change, value, path, route,
 *     url, query, response, paginator, parser, error, import_options — and comes first in the argument list (after the
 *     context, for object, list and entity functions). A function that reads a property names the
 *     property (`mapping_list_count`, `mapping_object_entity`); `get` and `set` are kept for an
 *     object's attribute values (`mapping_object_get_string`, `mapping_object_set`) and for a
 *     context's settings (`mapping_context_set_parser`). Three library-wide functions have no object:
 *     mapping_version, mapping_version_number and mapping_free. Each declaration's comment starts
 *     with `METHOD:` naming its object, as in sqlite3.h. CHANGELOG.md lists the renames of 0.2.0.
 *   - Every macro and enum constant is prefixed `MAPPING_`; codes and flags are typedef'd enums
 *     (mapping_status, mapping_type, mapping_parser, …). Functions take and return them as int or
 *     unsigned, so the ABI does not depend on the size a compiler gives an enum.
 *   - Option and description structs (mapping_import_options, mapping_response) start with a
 *     version. Their *_INIT macro sets only the version; *_init() does the same for bindings.
 *   - Functions that can fail return an int status: MAPPING_OK (0) or a negative MAPPING_E* code.
 *     After a failure, mapping_error_message() and mapping_error_last() describe it. On failure, output
 *     parameters are set to NULL / 0 where the function says so and are otherwise left untouched.
 *   - The handle comes first, output parameters last (constructors too: mapping_context_new takes
 *     the spec, then `out`); a single output parameter is named `out`, a second one `out_<what>`
 *     (mapping_object_get_string's `out_len`).
 *   - Ownership is stated per function: "new" results belong to the caller, who releases them with the
 *     named function; "borrowed" results belong to the library and stay valid as stated.
 *   - Strings are UTF-8. Functions taking a buffer take its length; pass MAPPING_NUL_TERMINATED as the
 *     length of a NUL-terminated string.
 *   - Misuse (NULL arguments, freed or foreign handles, an index out of range, a call made from inside
 *     a callback on the same context) returns MAPPING_EMISUSE or MAPPING_ESTALE; it never crashes.
 *
 * Thread safety
 *   A context may be used from several threads at once: the library serializes the calls made on one
 *   context, and each call sees the graph before or after another call, never halfway through one.
 *   JSON parsing happens before the lock is taken, so imports parse in parallel. Separate contexts are
 *   independent. Error details and most borrowed strings are kept per thread and per context; a string
 *   attribute read with mapping_object_get_string is the graph's own and lasts longer. A list
 *   (mapping_list) is an immutable snapshot and may be read from any thread.
 *   A transaction (mapping_context_begin() to mapping_context_commit() or mapping_context_rollback(), and every chunked import)
 *   belongs to the thread that opened it, like a SQLite write transaction: while it is open, the other
 *   threads' calls on that context, readers included, wait for it to end. They never join it, never
 *   see it halfway and cannot roll it back. A wait lasts at most the context's busy timeout (5000 ms
 *   unless set with mapping_context_set_busy_timeout()); past it the call fails with MAPPING_EBUSY and
 *   changes nothing. Freeing the context wakes the waiting calls, which fail with MAPPING_EMISUSE. A
 *   thread must end the transactions it opens: one left open by a thread that exits keeps the context
 *   busy for every other thread.
 */
#ifndef MAPPING_H
#define MAPPING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MAPPING_EXTERN extern __attribute__((visibility("default")))
#else
#define MAPPING_EXTERN extern
#endif

/* ---- Versions -------------------------------------------------------------------------------- */

#define MAPPING_VERSION_MAJOR 0
#define MAPPING_VERSION_MINOR 2
#define MAPPING_VERSION_PATCH 0
/** MAJOR * 10000 + MINOR * 100 + PATCH, for comparisons with #if. */
#define MAPPING_VERSION_NUMBER (MAPPING_VERSION_MAJOR * 10000 + MAPPING_VERSION_MINOR * 100 + MAPPING_VERSION_PATCH)
#define MAPPING_VERSION_STRING "0.2.0"

/** METHOD: library. The library's version as "MAJOR.MINOR.PATCH". Borrowed, static. */
MAPPING_EXTERN const char *mapping_version(void);

/** METHOD: library. The library's MAPPING_VERSION_NUMBER, to check that the loaded library matches the header:
 *  `assert(mapping_version_number() / 10000 == MAPPING_VERSION_MAJOR);` */
MAPPING_EXTERN int mapping_version_number(void);

/* ---- Status codes (names and numbers never change; new codes are added at the end) ----------- */

typedef enum mapping_status {
    MAPPING_OK = 0,  /* success */
    MAPPING_ERROR = -1,  /* an internal failure with no better code */
    MAPPING_EMISUSE = -2,  /* NULL or invalid argument, freed handle, re-entrant call */
    MAPPING_ESPEC = -3,  /* the mapping spec is invalid; the detail's path points into the spec */
    MAPPING_EPARSE = -4,  /* malformed JSON; the detail has line, column and byte position */
    MAPPING_ETYPE = -5,  /* a value of the wrong type (in a payload, or the wrong typed getter) */
    MAPPING_ENAME = -6,  /* unknown entity, attribute, relationship or mapping name */
    MAPPING_ENOTFOUND = -7,  /* no object with that identity */
    MAPPING_ESTALE = -8,  /* an object handle that was deleted or belongs to another context */
    MAPPING_ENULL = -9,  /* the attribute's value is null (or was never set) */
    MAPPING_EDEPTH = -10,  /* the input is nested too deeply */
    MAPPING_ERANGE = -11,  /* an index or a number out of range */
    MAPPING_EMAPPING = -12,  /* the payload does not fit the mapping (e.g. nothing at its rootPath) */
    MAPPING_EDENIED = -13,  /* a deletion refused by a relationship whose delete rule is deny */
    MAPPING_EPREDICATE = -14,  /* a predicate or sort that does not parse or names nothing; column set */
    MAPPING_ECONSTRAINT = -15,  /* a model rule is broken: minCount/maxCount, or an identity already taken */
    MAPPING_ERESPONSE = -16,  /* an HTTP error status; the message carries the payload's error messages */
    MAPPING_EUNAVAILABLE = -17,  /* a feature this build or machine lacks: the simdjson parser or PostgreSQL store, or its plugin */
    MAPPING_EBUSY = -18,  /* another thread's transaction outlasted the busy timeout, or the store file is
                             open in another context; nothing changed */
    MAPPING_ESTORE = -19,  /* the store's database file cannot be used: not a database, corrupt, written by
                              a newer version, read-only or full (the message says which); nothing changed */
    MAPPING_ECONFLICT = -20,  /* another process changed or deleted, since this context read them, objects
                                 this commit changes (a PostgreSQL store); nothing changed */
    MAPPING_ENOMEM = -21,  /* memory ran out while parsing a payload (the message says what it needed); nothing
                              changed */
} mapping_status;

/** METHOD: mapping_error. The name of a status code ("MAPPING_ETYPE"), or "MAPPING_E?" for an unknown one. Borrowed, static. */
MAPPING_EXTERN const char *mapping_error_name(int code);

/* ---- Types ----------------------------------------------------------------------------------- */

/** A spec and the object graph it describes. Opaque. */
typedef struct mapping_context mapping_context;

/** An immutable list of object handles (import results, to-many relationships, fetches). Opaque. */
typedef struct mapping_list mapping_list;

/** The state of a paginated list (RestKit's RKPaginator). Opaque. */
typedef struct mapping_paginator mapping_paginator;

/** A handle to one object of a context's graph. It carries a generation, so a handle to a deleted
 *  object, or to another context's object, is reported as MAPPING_ESTALE and never followed.
 *  Handles are plain values: copy and compare them freely (equal handles name the same object).
 *  Stale stays stale: a handle never names an object other than its own, however many objects are
 *  made and deleted after it (a slot whose 65,535 generations are used up is retired) and however
 *  many contexts are created after its context is freed (no two contexts of a process ever give out
 *  the same handle). Likewise the pointers of contexts, lists and paginators are never reused: once
 *  freed, a pointer stays invalid (MAPPING_EMISUSE) even when the memory is reused, and freeing it
 *  again is a no-op. At most 65,535 contexts may be alive at once (the next gets MAPPING_ERANGE). */
typedef uint64_t mapping_object;

/** "No object": a to-one relationship that is empty. Never a valid handle. */
#define MAPPING_NO_OBJECT ((mapping_object)0)

/** Pass as a length to mean "the string is NUL-terminated". */
#define MAPPING_NUL_TERMINATED ((size_t)-1)

/** Attribute types, as reported by mapping_entity_attribute_type(). */
typedef enum mapping_type {
    MAPPING_TYPE_STRING = 1,
    MAPPING_TYPE_INTEGER = 2,  /* int64_t */
    MAPPING_TYPE_DOUBLE = 3,
    MAPPING_TYPE_DECIMAL = 4,  /* exact; read as a string of digits */
    MAPPING_TYPE_BOOLEAN = 5,
    MAPPING_TYPE_DATE = 6,  /* an instant; read as seconds since 1970-01-01T00:00:00Z */
    MAPPING_TYPE_JSON = 7,  /* any JSON value, kept as is */
} mapping_type;

/** Details of the last failure. Every string is borrowed, never NULL (empty when not applicable). */
typedef struct mapping_error {
    int code;                /* the MAPPING_E* status returned */
    const char *message;     /* what went wrong, in one line */
    const char *path;        /* JSON path in the payload or spec, e.g. "$.data.people[2].age" */
    const char *attribute;   /* "Entity.attribute" concerned, e.g. "Person.age" */
    int line;                /* 1-based line of a parse error; 0 otherwise */
    int column;              /* 1-based column of a parse error; 0 otherwise */
    long long position;      /* 0-based byte offset of a parse error; 0 otherwise */
} mapping_error;

/* ---- Errors ---------------------------------------------------------------------------------- */

/**
 * METHOD: mapping_error. The message of the calling thread's last failed call on `ctx`, or "" if it has none.
 * With `ctx` NULL: the calling thread's last failure of a call that had no valid context
 * (mapping_context_new, or a call given a NULL or freed context).
 * Borrowed: valid until the calling thread's next call on the same context (or, for NULL, its next
 * failing context-less call).
 */
MAPPING_EXTERN const char *mapping_error_message(const mapping_context *ctx);

/** METHOD: mapping_error. The full detail of the same failure as mapping_error_message(). Never NULL; borrowed with the same
 *  lifetime. When there was no failure, `code` is MAPPING_OK. */
MAPPING_EXTERN const mapping_error *mapping_error_last(const mapping_context *ctx);

/* ---- Contexts -------------------------------------------------------------------------------- */

/**
 * METHOD: mapping_context. CONSTRUCTOR. Loads and validates a mapping spec and creates an empty graph for it.
 * @param spec  the spec as JSON text
 * @param len   its length in bytes, or MAPPING_NUL_TERMINATED
 * @param out   receives the new context (NULL on failure). New: release with mapping_context_free().
 * @return MAPPING_OK; MAPPING_ESPEC for an invalid spec (mapping_error_last(NULL)->path names the
 *         place in the spec, and line/column are set if it is not valid JSON); MAPPING_ERANGE when
 *         65,535 contexts are alive already; MAPPING_EMISUSE.
 */
MAPPING_EXTERN int mapping_context_new(const char *spec, size_t len, mapping_context **out);

/** METHOD: mapping_context. DESTRUCTOR. Frees the context and its graph; its object handles become invalid. NULL is a no-op,
 *  and so is a context already freed. Lists taken from the context stay valid (they are snapshots). */
MAPPING_EXTERN void mapping_context_free(mapping_context *ctx);

#define MAPPING_WAIT_FOREVER (-1)  /* a busy timeout without limit */

/** METHOD: mapping_context. How long this context's calls wait for another thread's transaction to end before failing
 *  with MAPPING_EBUSY: `milliseconds` (5000 by default), 0 not at all, MAPPING_WAIT_FOREVER (any
 *  negative value) as long as it takes. Applies to calls that start waiting afterwards. */
MAPPING_EXTERN int mapping_context_set_busy_timeout(mapping_context *ctx, int milliseconds);

/**
 * METHOD: mapping_context. The largest payload this context's imports accept (mapping_context_import, _with, _chunked — the
 * whole input — and mapping_response_map), in bytes; 0 (the default) for no limit. A longer one fails
 * with MAPPING_ERANGE before anything is parsed, and so does one whose arrays and objects make it cost
 * more: each `[` and `{` byte counts 16 bytes more than its length.
 *
 * Memory: importing typical API JSON peaks at about 13 times the text with jansson (7 with simdjson), parse
 * and graph together; parsing small nested arrays and objects alone takes up to 90 times (simdjson 23); with
 * a maximum set, the charge per array and object keeps those within about 14 times the maximum. Memory running out while parsing is MAPPING_ENOMEM,
 * nothing changed; running out elsewhere (the graph growing) ends the process, as malloc failure does in
 * most C libraries. A program that takes payloads from elsewhere bounds them here, and imports large
 * inputs with mapping_context_import_chunked().
 */
MAPPING_EXTERN int mapping_context_set_max_input(mapping_context *ctx, size_t bytes);

/* ---- Stores ---------------------------------------------------------------------------------- */

/** How mapping_context_open opens a store, combined with |. */
typedef enum mapping_open_flags {
    MAPPING_OPEN_CREATE = 1,    /* create the file (and its schema) when it does not exist */
    MAPPING_OPEN_READONLY = 2,  /* read the graph; every commit then fails with MAPPING_ESTORE */
    MAPPING_OPEN_DURABLE = 4,   /* make each commit survive power loss too (SQLite synchronous=FULL) */
    MAPPING_OPEN_REBUILD = 8,   /* a spec changed beyond growth: drop the store's objects and start over */
    MAPPING_OPEN_NO_FOLLOW = 16, /* PostgreSQL: leave other processes' commits out of this graph (importers
                                    that never read what others wrote); no effect on SQLite */
} mapping_open_flags;

/**
 * METHOD: mapping_context. CONSTRUCTOR. A context whose graph is kept in an SQLite database file:
 * opening reads no rows (the graph reads each row when it is first touched, and every row on the
 * first call that needs the whole graph: docs/store.md); every later commit (import, change, transaction,
 * chunked import, mapped response) is written to the file in one SQLite transaction before the
 * call returns, and a commit whose write fails fails as a whole, leaving file and graph as they
 * were. A commit that changes nothing writes nothing. docs/store.md describes the schema (a table
 * per entity hierarchy, a column per attribute, join tables for to-many relationships).
 *
 * Durability: the file is in WAL mode. By default a returned commit survives the process being
 * killed (kill -9); a power loss may lose the last commits, never leave part of one. With
 * MAPPING_OPEN_DURABLE each returned commit survives power loss too, at the cost of an fsync.
 *
 * One context per file: the file stays locked until mapping_context_free; a second open, from this
 * process or another, fails with MAPPING_EBUSY naming the file. The store records the spec it was
 * written with. A spec that grew since (added entities, attributes, relationships) brings the store
 * up to it (new values null); any other change — a type, an identification, something removed that
 * the store holds — fails with MAPPING_ESPEC naming the element and leaves the file as it was,
 * unless MAPPING_OPEN_REBUILD asks to drop the store's objects and start over.
 * @param flags  MAPPING_OPEN_* (0: open an existing file for reading and writing)
 * @param out    receives the new context (NULL on failure). New: release with mapping_context_free().
 * @return MAPPING_OK; MAPPING_ESPEC; MAPPING_EBUSY; MAPPING_ESTORE for a file that cannot be used (not
 *         a database, not a libmapping store, corrupt, written by a newer version, missing without
 *         MAPPING_OPEN_CREATE, in a folder that does not exist, or unreadable) and for a `path` that
 *         reads as a URI other than postgresql:// (a mistyped `postgres:/db` among them), the message
 *         saying which and what to do; MAPPING_EMISUSE.
 *
 * PostgreSQL: a `path` that is a libpq URI (`postgresql://` or `postgres://`, with an optional
 * `schema=NAME` parameter of libmapping's own, `mapping` by default) opens a store in that schema of
 * that database instead, which many contexts in many processes share (docs/scaling.md). The tables
 * are the same; each row also carries a `_version`. As with SQLite, a context reads the rows it touches
 * and keeps them up to its cache limit (mapping_context_set_cache_limit). A commit is one PostgreSQL transaction. Two processes that add the same new identity at once end
 * with one row, the later commit writing its values to it; a commit that changes or deletes an
 * object another process changed since this context read it fails whole with MAPPING_ECONFLICT.
 * Every call made outside a transaction first applies what other processes committed and announced
 * to the rows this context holds (observers see it as a commit; with observers, the rows they inserted
 * are read too); mapping_context_refresh() asks the database at once; with MAPPING_OPEN_NO_FOLLOW
 * neither happens, and the rows the graph holds stay as this context read or wrote them (rows it has
 * not read are read as they are when touched; its commits still resolve identities and check
 * versions). A connection the server dropped is replaced on the next call (docs/scaling.md). Many contexts
 * may open one schema (no MAPPING_EBUSY); a spec that grew brings the schema up to it as for SQLite;
 * MAPPING_OPEN_DURABLE changes nothing (PostgreSQL's commits are durable as configured
 * on the server). MAPPING_EUNAVAILABLE when this build has no PostgreSQL store, or when its plugin
 * (libmapping-postgres.so, beside the library) or libpq cannot be loaded; the message says which.
 */
MAPPING_EXTERN int mapping_context_open(const char *spec, size_t len, const char *path, unsigned flags,
                                        mapping_context **out);

/**
 * METHOD: mapping_context. Brings the rows the graph holds up to everything other processes had committed
 * to its PostgreSQL store when the call began, telling observers as for a commit. Every call does this
 * with what the database has announced already; this one asks it first (one round trip). Nothing
 * for a context without a store or with an SQLite one; inside a transaction, nothing until it ends.
 * @return MAPPING_OK; MAPPING_ESTORE when the database cannot be reached or what others wrote cannot be
 *         read (the objects they changed stay as they were); MAPPING_EBUSY when another thread's
 *         transaction outlasts the busy timeout; MAPPING_EMISUSE.
 */
MAPPING_EXTERN int mapping_context_refresh(mapping_context *ctx);

#define MAPPING_DEFAULT_CACHE_LIMIT 100000  /* objects a context on a store keeps read by default */

/**
 * METHOD: mapping_context. The most objects a context on a store keeps read between calls (its cache
 * limit): MAPPING_DEFAULT_CACHE_LIMIT (about 40 MB of a typical graph) until set; 0 for no limit. At the end
 * of a call, outside a transaction, a context holding more evicts the objects least recently used
 * down to 90% of the limit. Every object held then is as its row (each call commits), so nothing
 * uncommitted is evicted. An evicted object's handle stays valid: the next read of it reads its row
 * again (a deleted object's handle stays stale). Strings read with mapping_object_get_string() stay
 * valid across eviction too: their bytes are kept until the context is freed. A transaction
 * (mapping_context_begin, a chunked import) reads what its calls touch and evicts nothing until it
 * ends; a call that scans for values the database cannot compare as memory does (decimals, JSON,
 * in an identificationPredicate's mapping or a connection by attributes) reads every row first, and
 * eviction follows at its end. No effect on a context without a store. Applies from the end of the next call.
 * @return MAPPING_OK; MAPPING_EMISUSE.
 */
MAPPING_EXTERN int mapping_context_set_cache_limit(mapping_context *ctx, size_t objects);

/** METHOD: mapping_context. How many objects the context holds read now (rows not read yet are not counted) and its cache
 *  limit; either pointer may be NULL. For a context without a store, every object is held.
 *  @return MAPPING_OK; MAPPING_EMISUSE. */
MAPPING_EXTERN int mapping_context_cache_info(mapping_context *ctx, size_t *held, size_t *limit);

/* ---- Parsers --------------------------------------------------------------------------------- */

typedef enum mapping_parser {
    MAPPING_PARSER_DEFAULT = 0,  /* in import options: the context's parser */
    MAPPING_PARSER_JANSSON = 1,  /* jansson: the default, always built */
    MAPPING_PARSER_SIMDJSON = 2,  /* simdjson: several times faster on large payloads; built when
                                     libsimdjson-dev is present (see the README) */
} mapping_parser;

/** METHOD: mapping_parser. 1 if this build of the library has `parser` (a MAPPING_PARSER_* value), else 0. */
MAPPING_EXTERN int mapping_parser_is_available(int parser);

/**
 * METHOD: mapping_context. Chooses the parser for the context's imports (mapping_context_import, _with, _chunked,
 * mapping_response_map) unless their options name one. Both parsers give the same graph and report
 * malformed JSON with the same line, column and message. The context keeps its simdjson parser between
 * imports (its buffers take several times the largest document it parsed, up to 16 MB; a larger
 * document's are freed after its import) and frees it with the context.
 * @return MAPPING_OK; MAPPING_EUNAVAILABLE for a parser this build lacks; MAPPING_ERANGE for a value
 *         that names no parser; MAPPING_EMISUSE.
 */
MAPPING_EXTERN int mapping_context_set_parser(mapping_context *ctx, int parser);

/* ---- Importing ------------------------------------------------------------------------------- */

/**
 * METHOD: mapping_context. Parses a JSON payload and maps it into the graph with the named mapping: the
 * representations at the mapping's rootPath (or the root), an object or an array of objects.
 * One object per identity: an identity seen before (in this payload or an earlier one) updates that
 * object in place. A missing key leaves a value as it is; null clears it.
 * All or nothing: on any failure the graph is exactly as it was before the call.
 * @param mapping  the mapping's name in the spec
 * @param json     the payload; @param len its length in bytes, or MAPPING_NUL_TERMINATED
 * @param out      receives the top-level objects in payload order (NULL on failure). New: release
 *                 with mapping_list_free(). May be NULL if the caller does not want them.
 * @return MAPPING_OK; MAPPING_EPARSE (line, column, position set); MAPPING_ETYPE (path and
 *         attribute set); MAPPING_ENAME; MAPPING_EMAPPING; MAPPING_EDEPTH; MAPPING_ERANGE.
 */
MAPPING_EXTERN int mapping_context_import(mapping_context *ctx, const char *mapping, const char *json, size_t len,
                                          mapping_list **out);

/** Events reported to mapping_import_options.on_event, in FastEasyMapping's order: will-map collection,
 *  then for each element will-map object … did-map object, then did-map collection. */
typedef enum mapping_event {
    MAPPING_EVENT_WILL_MAP_COLLECTION = 1,  /* count: the number of elements */
    MAPPING_EVENT_WILL_MAP_OBJECT = 2,  /* object: MAPPING_NO_OBJECT (not known yet) */
    MAPPING_EVENT_DID_MAP_OBJECT = 3,  /* object: the object mapped */
    MAPPING_EVENT_DID_MAP_COLLECTION = 4,  /* count: the number of objects mapped */
} mapping_event;

/** An import event: which (MAPPING_EVENT_*), the mapping's name (borrowed, valid during the call),
 *  the object or MAPPING_NO_OBJECT, and a count where the event has one. */
typedef void (*mapping_event_fn)(int event, const char *mapping, mapping_object object, size_t count, void *payload);

/** Import progress: objects mapped so far, and the representations the import will map, counted
 *  before the first call (nested ones included), so done/known is a real fraction. The last call,
 *  once at the end, has known == done. A chunked import knows only the chunks it has parsed: its
 *  total grows chunk by chunk. Called every `progress_interval` objects and once at the end. */
typedef void (*mapping_progress_fn)(size_t done, size_t known, void *payload);

/** Checks an import can make (mapping_import_options.checks, version 3), for the mistakes that
 *  otherwise pass in silence: a key path of a mapping that matched nothing in the whole payload (a
 *  typo in the spec, or a payload that changed), and representations without their entity's
 *  identification (each becomes a new object with no identity). A key path of an attribute or
 *  relationship the mapping lists in "optional" is no mistake when it matches nothing, unless
 *  MAPPING_CHECK_OPTIONAL asks. */
typedef enum mapping_check {
    MAPPING_CHECK_WARN = 1,      /* report each warning to on_warning */
    MAPPING_CHECK_STRICT = 2,    /* a warning fails the import with MAPPING_EMAPPING; it changes nothing */
    MAPPING_CHECK_OPTIONAL = 4,  /* also warn about the mapping's "optional" key paths that matched nothing */
} mapping_check;

/** The kinds of warning an import reports to mapping_import_options.on_warning. */
typedef enum mapping_warning {
    MAPPING_WARNING_UNMATCHED_KEY_PATH = 1,      /* element: Entity.attribute or .relationship; where: the
                                                    key path; count: the mapping's representations */
    MAPPING_WARNING_MISSING_IDENTIFICATION = 2,  /* element: the entity; where: the JSON path of the first
                                                    representation; count: how many lacked it */
} mapping_warning;

/** One warning of an import: its kind (MAPPING_WARNING_*), the mapping's name, the element and place it
 *  concerns, a count, and the whole message. Strings are borrowed, valid during the call. */
typedef void (*mapping_warning_fn)(int warning, const char *mapping, const char *element, const char *where,
                                   size_t count, const char *message, void *payload);

/**
 * Options for mapping_context_import_with(). Initialize with MAPPING_IMPORT_OPTIONS_INIT and set what you
 * need; the library reads only the fields of the version it is given. Callbacks run on the importing
 * thread with the context's lock held: they must not call functions on the same context (those return
 * MAPPING_EMISUSE). Handles they receive become stale if the import fails in the end.
 */
typedef struct mapping_import_options {
    unsigned version;                /* MAPPING_IMPORT_OPTIONS_VERSION */
    const char *metadata;            /* JSON object readable as "@metadata.<path>" key paths, or NULL */
    size_t metadata_len;             /* its length, or MAPPING_NUL_TERMINATED */
    mapping_event_fn on_event;       /* or NULL */
    void *event_payload;
    mapping_progress_fn on_progress; /* or NULL */
    void *progress_payload;
    size_t progress_interval;        /* objects between progress calls; 0 means 256 */
    const char *orphan_entity;       /* orphan deletion: after the import, objects of this entity ... */
    const char *orphan_predicate;    /* ... matching this predicate (NULL: all) that the import did not
                                        touch (map, skip as unmodified, reach by identity) are deleted */
    int parser;                      /* version 2: MAPPING_PARSER_*; MAPPING_PARSER_DEFAULT: the context's */
    unsigned checks;                 /* version 3: MAPPING_CHECK_* flags; 0: none */
    mapping_warning_fn on_warning;   /* version 3: called per warning once the payload is mapped (before the
                                        call returns, also when MAPPING_CHECK_STRICT fails it), or NULL */
    void *warning_payload;
} mapping_import_options;

/* Callers of versions 1 and 2 (compiled before `parser` or `checks` existed) keep working: their
 * shorter struct is read as such. */
#define MAPPING_IMPORT_OPTIONS_VERSION 3
#ifdef __cplusplus
#define MAPPING_IMPORT_OPTIONS_INIT { MAPPING_IMPORT_OPTIONS_VERSION }
#else /* designated, so -Wmissing-field-initializers has nothing to say about the fields left zero */
#define MAPPING_IMPORT_OPTIONS_INIT { .version = MAPPING_IMPORT_OPTIONS_VERSION }
#endif

/** METHOD: mapping_import_options. Sets every field of `options` to its default (zero) and its version to `version` (1 to 3), for
 *  callers that cannot use MAPPING_IMPORT_OPTIONS_INIT, such as bindings. Writes only the fields that
 *  version has. @return MAPPING_OK; MAPPING_EMISUSE for NULL or an unknown version. */
MAPPING_EXTERN int mapping_import_options_init(mapping_import_options *options, unsigned version);

/**
 * METHOD: mapping_context. mapping_context_import() with more: several mappings applied to the same payload in turn, each at
 * its own rootPath, as one all-or-nothing import (the result lists their objects in that order);
 * metadata for "@metadata." key paths (besides the built-in "@metadata.mapping.collectionIndex" and
 * "@metadata.mapping.parentObject.<attribute>"); event and progress callbacks.
 * @param mappings       `mapping_count` mapping names (at least one)
 * @param options        may be NULL for the defaults
 * @return as mapping_context_import(); MAPPING_EMISUSE for an unknown options version; MAPPING_EPARSE for
 *         metadata that is not JSON.
 */
MAPPING_EXTERN int mapping_context_import_with(mapping_context *ctx, const char *const *mappings, size_t mapping_count,
                                               const char *json, size_t len, const mapping_import_options *options,
                                               mapping_list **out);

typedef enum mapping_chunks_format {
    MAPPING_CHUNKS_ARRAY = 0,  /* the input is one JSON array of representations */
    MAPPING_CHUNKS_LINES = 1,  /* the input is JSON Lines: one representation per non-blank line */
} mapping_chunks_format;

/**
 * METHOD: mapping_context. Imports a large input in chunks of `chunk_size` representations, so that only one chunk's
 * parse tree is in memory at a time (jansson's tree costs about 10x the text it parses). The elements
 * of the array are found without parsing the whole input. Each representation is mapped with `mapping`
 * as if it stood at the root (its rootPath does not apply). All or nothing: the chunks run in one
 * transaction — the caller's, when mapping_context_begin() opened one, else one committed at the end.
 * It accepts and rejects the arrays mapping_context_import() does, with the same parse error at the same line,
 * column and position in the whole input — but chunks are mapped as they come, so an element that
 * does not map, in a chunk before a malformation later in the input, is reported first (nothing is
 * imported either way). Other threads wait for the whole import. Progress callbacks count across chunks.
 * @param format      MAPPING_CHUNKS_ARRAY or MAPPING_CHUNKS_LINES
 * @param chunk_size  representations per chunk (0 means 10000)
 * @param options     may be NULL; as mapping_context_import_with()
 * @param out         receives the number of representations mapped (may be NULL)
 * @return as mapping_context_import(); MAPPING_EPARSE also for an input that is not an array.
 */
MAPPING_EXTERN int mapping_context_import_chunked(mapping_context *ctx, const char *mapping, const char *data, size_t len,
                                                  int format, size_t chunk_size, const mapping_import_options *options,
                                                  size_t *out);

/* ---- Lists ----------------------------------------------------------------------------------- */

/** METHOD: mapping_list. CONSTRUCTOR. A list of the given `count` handles (copied), e.g. to serialize a selection.
 *  Handles are not checked here; functions that read them report stale ones.
 *  @param out  New: release with mapping_list_free(). */
MAPPING_EXTERN int mapping_list_new(const mapping_object *objects, size_t count, mapping_list **out);

/** METHOD: mapping_list. The number of objects in `list`; 0 for NULL or a freed list. */
MAPPING_EXTERN size_t mapping_list_count(const mapping_list *list);

/** METHOD: mapping_list. The object at `index`. @return MAPPING_OK; MAPPING_ERANGE when index >= count (out set to
 *  MAPPING_NO_OBJECT); MAPPING_EMISUSE for a NULL or freed list. */
MAPPING_EXTERN int mapping_list_at(const mapping_list *list, size_t index, mapping_object *out);

/** METHOD: mapping_list. Copies the list's handles into `buffer` in one call (bindings use it instead of one
 *  mapping_list_at per object): min(capacity, count) of them. `buffer` may be NULL when capacity is 0.
 *  @param out    receives the list's full count (a larger capacity is needed when it exceeds it).
 *  @return MAPPING_OK; MAPPING_EMISUSE for a NULL or freed list or a NULL buffer with capacity > 0. */
MAPPING_EXTERN int mapping_list_copy(const mapping_list *list, mapping_object *buffer, size_t capacity, size_t *out);

/** METHOD: mapping_list. DESTRUCTOR. NULL is a no-op, and so is a list already freed. */
MAPPING_EXTERN void mapping_list_free(mapping_list *list);

/* ---- Reading objects ------------------------------------------------------------------------- */

/** METHOD: mapping_object. MAPPING_OK if `object` is a live object of `ctx`; MAPPING_ESTALE if deleted or foreign. */
MAPPING_EXTERN int mapping_object_check(mapping_context *ctx, mapping_object object);

/** METHOD: mapping_object. The name of the object's entity. Borrowed: valid as long as the context. */
MAPPING_EXTERN int mapping_object_entity(mapping_context *ctx, mapping_object object, const char **out);

/** METHOD: mapping_entity. The declared type (MAPPING_TYPE_*) of an attribute of an entity. */
MAPPING_EXTERN int mapping_entity_attribute_type(mapping_context *ctx, const char *entity, const char *attribute,
                                                 int *out);

/** METHOD: mapping_entity. The number of attributes of an entity, inherited ones included. */
MAPPING_EXTERN int mapping_entity_attribute_count(mapping_context *ctx, const char *entity, size_t *out);

/** METHOD: mapping_entity. The name of the attribute at `index` (0 ..< count; inherited ones first). Borrowed: valid as long
 *  as the context. MAPPING_ERANGE when index >= count. */
MAPPING_EXTERN int mapping_entity_attribute_name(mapping_context *ctx, const char *entity, size_t index,
                                                 const char **out);

/** METHOD: mapping_entity. The number of attributes whose values identify the entity's objects (its
 *  identification: declared, inherited or inferred); 0 when its objects have no identity. */
MAPPING_EXTERN int mapping_entity_identification_count(mapping_context *ctx, const char *entity, size_t *out);

/** METHOD: mapping_entity. The name of the identifying attribute at `index` (0 ..< count, in
 *  identification order). Borrowed: valid as long as the context. MAPPING_ERANGE when index >= count. */
MAPPING_EXTERN int mapping_entity_identification_name(mapping_context *ctx, const char *entity, size_t index,
                                                      const char **out);

/** METHOD: mapping_entity. The number of relationships of an entity, inherited ones included. */
MAPPING_EXTERN int mapping_entity_relationship_count(mapping_context *ctx, const char *entity, size_t *out);

/** METHOD: mapping_entity. The name of the relationship at `index`. Borrowed: valid as long as the context. */
MAPPING_EXTERN int mapping_entity_relationship_name(mapping_context *ctx, const char *entity, size_t index,
                                                    const char **out);

/** METHOD: mapping_entity. Whether a relationship of an entity is to-many (read with mapping_object_related_list) or to-one
 *  (read with mapping_object_related). */
MAPPING_EXTERN int mapping_entity_relationship_is_to_many(mapping_context *ctx, const char *entity,
                                                          const char *relationship, bool *out);

/** METHOD: mapping_object. Whether the attribute's value is null (or was never set). */
MAPPING_EXTERN int mapping_object_is_null(mapping_context *ctx, mapping_object object, const char *attribute,
                                          bool *out);

/*
 * Typed getters. Each returns MAPPING_OK and the value; MAPPING_ENULL when the value is null (out is
 * set to 0 / NULL); MAPPING_ETYPE when the attribute is of another type; MAPPING_ENAME for an unknown
 * attribute; MAPPING_ESTALE for a stale handle.
 */

/** METHOD: mapping_object. A string attribute. Borrowed from the graph itself: valid until this attribute of this object
 *  changes (by an import, mapping_object_set, a deletion of the object or a rollback) or the context is freed, whatever
 *  other calls are made meanwhile, so two strings read one after the other can be printed together. Strings may contain
 *  NUL bytes: `out_len`, if not NULL, receives the length in bytes; the string is also NUL-terminated. */
MAPPING_EXTERN int mapping_object_get_string(mapping_context *ctx, mapping_object object, const char *attribute,
                                             const char **out, size_t *out_len);

/** METHOD: mapping_object. An integer attribute. */
MAPPING_EXTERN int mapping_object_get_int64(mapping_context *ctx, mapping_object object, const char *attribute,
                                            int64_t *out);

/** METHOD: mapping_object. A double attribute; integer and decimal attributes are converted to the nearest double. */
MAPPING_EXTERN int mapping_object_get_double(mapping_context *ctx, mapping_object object, const char *attribute,
                                             double *out);

/** METHOD: mapping_object. A boolean attribute. */
MAPPING_EXTERN int mapping_object_get_bool(mapping_context *ctx, mapping_object object, const char *attribute,
                                           bool *out);

/** METHOD: mapping_object. A date attribute, as seconds since 1970-01-01T00:00:00Z (fraction = microseconds). A double
 *  holds about 15 digits: instants more than about 300 years from 1970 lose microseconds. For the exact value use
 *  mapping_object_get_date_us(). */
MAPPING_EXTERN int mapping_object_get_date(mapping_context *ctx, mapping_object object, const char *attribute,
                                           double *out);

/** METHOD: mapping_object. A date attribute, exactly: microseconds since 1970-01-01T00:00:00Z (negative before). */
MAPPING_EXTERN int mapping_object_get_date_us(mapping_context *ctx, mapping_object object, const char *attribute,
                                              int64_t *out);

/** METHOD: mapping_object. A decimal attribute as exact plain digits ("131.3", "-0.001"). Borrowed: valid until the calling
 *  thread's next call on `ctx`. */
MAPPING_EXTERN int mapping_object_get_decimal(mapping_context *ctx, mapping_object object, const char *attribute,
                                              const char **out);

/** METHOD: mapping_object. Any attribute as JSON text, as serialization writes it ("null" for null, dates as ISO-8601
 *  strings). New: release with mapping_free(). Never MAPPING_ENULL. */
MAPPING_EXTERN int mapping_object_get_json(mapping_context *ctx, mapping_object object, const char *attribute,
                                           char **out);

/** METHOD: mapping_list. One attribute of every object of `objects`, in one call: a JSON array with an element per object,
 *  each as mapping_object_get_json writes it (null for null) except dates, written as the seconds since
 *  1970 in exact decimal text ("10413792000.000001": every microsecond, whatever the year; parse it as a decimal,
 *  not a double, to keep them). For reading a column of many objects without a
 *  call per value; the objects may be of several entities that all have `attribute`.
 *  New: release with mapping_free().
 *  @return MAPPING_OK; MAPPING_ENAME / MAPPING_ESTALE naming the position of the object that fails. */
MAPPING_EXTERN int mapping_list_values(mapping_context *ctx, const mapping_list *objects, const char *attribute,
                                       char **out);

/** METHOD: mapping_object. The target of a to-one relationship; MAPPING_NO_OBJECT when empty. MAPPING_ETYPE for a to-many
 *  relationship. */
MAPPING_EXTERN int mapping_object_related(mapping_context *ctx, mapping_object object, const char *relationship,
                                          mapping_object *out);

/** METHOD: mapping_object. The targets of a to-many relationship, in order. New: release with mapping_list_free().
 *  MAPPING_ETYPE for a to-one relationship. */
MAPPING_EXTERN int mapping_object_related_list(mapping_context *ctx, mapping_object object,
                                               const char *relationship, mapping_list **out);

/* ---- Finding objects ------------------------------------------------------------------------- */

/**
 * METHOD: mapping_entity. The object of `entity` (or of a sub-entity) with the given identity.
 * @param identity  JSON text: the value for a single identification attribute (`123`, `"abc"`);
 *                  for a compound identification an array in identification order or an object
 *                  keyed by attribute name. Values are coerced as on import: `"123"` finds 123.
 * @return MAPPING_OK; MAPPING_ENOTFOUND if there is none (out set to MAPPING_NO_OBJECT);
 *         MAPPING_ENAME; MAPPING_EPARSE; MAPPING_EMISUSE if the entity has no identification.
 */
MAPPING_EXTERN int mapping_entity_find(mapping_context *ctx, const char *entity, const char *identity,
                                       mapping_object *out);

/** METHOD: mapping_entity. Every object of `entity` and its sub-entities, in creation order per entity. New: release with
 *  mapping_list_free(). */
MAPPING_EXTERN int mapping_entity_all(mapping_context *ctx, const char *entity, mapping_list **out);

/** METHOD: mapping_entity. How many objects `entity` and its sub-entities have. */
MAPPING_EXTERN int mapping_entity_count(mapping_context *ctx, const char *entity, size_t *out);

/* ---- Host transformers ----------------------------------------------------------------------- */

/** Where a transformer writes its result. Opaque; valid only during the transformer call. */
typedef struct mapping_value mapping_value;

/**
 * A host transformer. `input` is the incoming value as JSON text of `input_len` bytes (never
 * `null`: nulls are not transformed, they clear). On success it writes its result with
 * mapping_value_set_json() and returns 0; any other return rejects the value, and the import fails
 * with MAPPING_ETYPE naming the JSON path and the attribute (the message given with
 * mapping_value_set_error(), if any). It runs on the thread that called mapping_context_import() or
 * mapping_object_serialize(), with the context's lock held: it must not call functions on the same context
 * (they return MAPPING_EMISUSE). `payload` is the pointer given at registration.
 */
typedef int (*mapping_transformer_fn)(const char *input, size_t input_len, mapping_value *output, void *payload);

/**
 * METHOD: mapping_context. Registers (or replaces) a transformer that the spec names in an attribute mapping:
 * `{"keyPath": "status", "transformer": "status-code"}`. `forward` maps incoming values; `reverse`
 * (may be NULL) maps stored values back when serializing, and without it the attribute is left out
 * of the output. Built-in names (`iso8601`, `epoch`, `epochMillis`, `url`, `date:…`) cannot be taken.
 * An import that uses a name nobody registered fails with MAPPING_ENAME.
 */
MAPPING_EXTERN int mapping_context_register_transformer(mapping_context *ctx, const char *name, mapping_transformer_fn forward,
                                                        mapping_transformer_fn reverse, void *payload);

/** METHOD: mapping_value. Sets a transformer's result: JSON text of `len` bytes (or MAPPING_NUL_TERMINATED). MAPPING_EPARSE if
 *  it is not valid JSON (the transformer call then fails). */
MAPPING_EXTERN int mapping_value_set_json(mapping_value *output, const char *json, size_t len);

/** METHOD: mapping_value. Sets the message a failing transformer reports (copied). */
MAPPING_EXTERN int mapping_value_set_error(mapping_value *output, const char *message);

/* ---- Changes and transactions ----------------------------------------------------------------- */

/*
 * Each change below is all or nothing and, when it ends, checks the minCount/maxCount of the
 * relationships it touched (MAPPING_ECONSTRAINT, nothing changed). Inverses follow every change.
 * Between mapping_context_begin() and mapping_context_commit() the calling thread's calls (imports too) form one
 * transaction: the counts are checked at commit, and any failing call of that thread that changed the graph
 * (a mapping that failed halfway, a chunked import failing after some of its chunks) rolls the whole transaction
 * back and ends it; a call refused before it changed anything (malformed JSON, an unknown name, a payload over the
 * maximum, a misuse) leaves the transaction as it was. The transaction belongs to that thread: other threads' calls wait for
 * it to end, up to the busy timeout (see "Thread safety" at the top), and then fail with MAPPING_EBUSY.
 */

/** METHOD: mapping_context. Opens a transaction owned by the calling thread. MAPPING_EMISUSE if this thread has one
 *  open already; MAPPING_EBUSY if another thread's stays open past the busy timeout. */
MAPPING_EXTERN int mapping_context_begin(mapping_context *ctx);

/** METHOD: mapping_context. Keeps the transaction's changes if every count rule holds; otherwise rolls it back and
 *  returns MAPPING_ECONSTRAINT naming the relationship. MAPPING_EMISUSE if none is open. */
MAPPING_EXTERN int mapping_context_commit(mapping_context *ctx);

/** METHOD: mapping_context. Undoes everything since mapping_context_begin(). MAPPING_EMISUSE if none is open. */
MAPPING_EXTERN int mapping_context_rollback(mapping_context *ctx);

/** METHOD: mapping_object. A new object of `entity` with the attribute values of `values` (a JSON object, or NULL),
 *  coerced as on import. MAPPING_ECONSTRAINT if another object already has its identity. */
MAPPING_EXTERN int mapping_object_create(mapping_context *ctx, const char *entity, const char *values, mapping_object *out);

/** METHOD: mapping_object. Sets an attribute from JSON text (`"null"` clears it), coerced as on import; changing an
 *  identification attribute re-indexes the object (MAPPING_ECONSTRAINT if the identity is taken). */
MAPPING_EXTERN int mapping_object_set(mapping_context *ctx, mapping_object object, const char *attribute, const char *value);

/** METHOD: mapping_object. Sets a to-one relationship (MAPPING_NO_OBJECT clears it), or makes a to-many hold just
 *  `target`. MAPPING_ETYPE for a target of another entity. */
MAPPING_EXTERN int mapping_object_set_related(mapping_context *ctx, mapping_object object, const char *relationship,
                                              mapping_object target);

/** METHOD: mapping_object. Sets a to-many relationship to the objects of `targets`, in order (repeats dropped). */
MAPPING_EXTERN int mapping_object_set_related_list(mapping_context *ctx, mapping_object object, const char *relationship,
                                                   const mapping_list *targets);

/** Append at the end: the `index` of mapping_object_add_related() for unordered relationships. */
#define MAPPING_APPEND ((size_t)-1)

/** METHOD: mapping_object. Adds `target` to a to-many relationship at `index` of an ordered one, or MAPPING_APPEND. A
 *  target already there stays where it is with MAPPING_APPEND (as an ordered set's append: nothing changes, no
 *  observer is called) and moves to `index` with one. On a to-one it sets the relationship. */
MAPPING_EXTERN int mapping_object_add_related(mapping_context *ctx, mapping_object object, const char *relationship,
                                              mapping_object target, size_t index);

/** METHOD: mapping_object. Removes `target` from a relationship. */
MAPPING_EXTERN int mapping_object_remove_related(mapping_context *ctx, mapping_object object, const char *relationship,
                                                 mapping_object target);

/** METHOD: mapping_object. Moves the target at `from` of an ordered to-many relationship to `to`. MAPPING_ERANGE for a
 *  position out of range. */
MAPPING_EXTERN int mapping_object_move_related(mapping_context *ctx, mapping_object object, const char *relationship,
                                               size_t from, size_t to);

/** METHOD: mapping_object. Deletes an object with the delete rules of its relationships: nullify, cascade (transitively),
 *  deny (MAPPING_EDENIED naming the relationship; nothing deleted), noAction. Its handle becomes stale. */
MAPPING_EXTERN int mapping_object_delete(mapping_context *ctx, mapping_object object);

/* ---- Observing changes ----------------------------------------------------------------------- */

/** One commit's changes, lent to an observer for the duration of its call. Opaque. */
typedef struct mapping_changes mapping_changes;

/** The kinds of entries of a change set. */
typedef enum mapping_change_kind {
    MAPPING_CHANGE_INSERTED = 1,  /* objects the commit made */
    MAPPING_CHANGE_UPDATED = 2,   /* objects whose attributes or relationships it changed */
    MAPPING_CHANGE_DELETED = 3,   /* objects it deleted: entity and identity only, their handles are stale */
} mapping_change_kind;

/** An observer: called with each commit's changes (see mapping_context_observe). `changes` and the
 *  strings read from it are valid only during the call. */
typedef void (*mapping_observer_fn)(mapping_context *ctx, const mapping_changes *changes, void *payload);

/**
 * METHOD: mapping_context. Calls `observer` after every later commit on this context that changed
 * something: an import, a mapped response, a change (create, set, relate, delete), a committed
 * transaction, a whole chunked import. Objects made and deleted within one commit appear nowhere; a
 * rollback, a failed call and a commit that changed nothing (a re-import of the same data) call no
 * observer. A relationship set on one side changes its inverse too: both objects are reported.
 * The observer runs on the thread that committed, after that call has released the context, so it
 * may call the context (reading the new values, or changing them: that commit is observed in turn);
 * the call's own status and mapping_error_last() are unaffected by what the observer does.
 * Rules: observers changing the graph in turn stop 32 commits deep (a change made deeper fails with
 * MAPPING_EMISUSE and changes nothing), so an observer that always changes something cannot keep the
 * committing call from returning; a transaction an observer opens must end before it returns (one
 * left open is rolled back then, so the caller's later calls never join it); an observer may remove
 * itself or others, and may free the context (the rest of that delivery is then not made).
 * Adding, calling and removing observers costs time in proportion to their number.
 * @param out  receives a token for mapping_context_unobserve()
 */
MAPPING_EXTERN int mapping_context_observe(mapping_context *ctx, mapping_observer_fn observer, void *payload,
                                           uint64_t *out);

/** METHOD: mapping_context. Stops calling the observer `token` names: once this returns MAPPING_OK the
 *  observer is never called again, not even for a commit whose delivery is under way (so its payload may be
 *  freed at once). MAPPING_ENOTFOUND when there is none (already removed). Freeing the context removes every
 *  observer. */
MAPPING_EXTERN int mapping_context_unobserve(mapping_context *ctx, uint64_t token);

/** A context's warning handler (see mapping_context_set_warning_handler). `message` is valid only during the
 *  call. */
typedef void (*mapping_context_warning_fn)(mapping_context *ctx, const char *message, void *payload);

/** METHOD: mapping_context. Sets the function given the warnings no call returns: what the context's database
 *  says on its own (a PostgreSQL server's notices and warnings, which libpq would print on the program's stderr),
 *  one line each, naming the store. NULL drops them (the default). Replaces the handler set before. It runs on
 *  the thread whose call received the warning, after that call has released the context, so it may call the
 *  context; the call's own status and mapping_error_last() are unaffected. At most 100 are kept between two
 *  calls (then one line says how many more were dropped). */
MAPPING_EXTERN int mapping_context_set_warning_handler(mapping_context *ctx, mapping_context_warning_fn handler,
                                                       void *payload);

/** METHOD: mapping_changes. How many entries of `kind` (MAPPING_CHANGE_*) the change set has. */
MAPPING_EXTERN int mapping_changes_count(const mapping_changes *changes, int kind, size_t *out);

/** METHOD: mapping_changes. The object of an inserted or updated entry. MAPPING_ESTALE for a deleted
 *  entry (its handle is stale); MAPPING_ERANGE when index >= count. */
MAPPING_EXTERN int mapping_changes_object(const mapping_changes *changes, int kind, size_t index,
                                          mapping_object *out);

/** METHOD: mapping_changes. The entity name of an entry. Borrowed: valid as long as the context. */
MAPPING_EXTERN int mapping_changes_entity(const mapping_changes *changes, int kind, size_t index,
                                          const char **out);

/** METHOD: mapping_changes. The identity of a deleted entry as JSON text: its identification value,
 *  an object of them for a compound one, or null. Borrowed: valid during the observer call. */
MAPPING_EXTERN int mapping_changes_identity(const mapping_changes *changes, size_t index, const char **out);

/** METHOD: mapping_changes. The names of the attributes and relationships an updated entry changed,
 *  as a JSON array in declaration order. Borrowed: valid during the observer call. */
MAPPING_EXTERN int mapping_changes_changed(const mapping_changes *changes, size_t index, const char **out);

/** The results of a watched fetch after a commit, lent to the watch function during its call. Opaque. */
typedef struct mapping_fetch_change mapping_fetch_change;

/** The kinds of positions of a fetch change. */
typedef enum mapping_position_kind {
    MAPPING_POSITION_REMOVED = 1,   /* positions in the old results of objects no longer in them */
    MAPPING_POSITION_INSERTED = 2,  /* positions in the new results of objects that were not in the old */
    MAPPING_POSITION_UPDATED = 3,   /* positions in the new results of objects that stayed and were updated */
    MAPPING_POSITION_MOVED = 4,     /* objects that stayed but changed places: new position (out_from: old) */
} mapping_position_kind;

/** A watch function: called with each commit's change to the watched fetch's results. */
typedef void (*mapping_watch_fn)(mapping_context *ctx, const mapping_fetch_change *change, void *payload);

/**
 * METHOD: mapping_context. Watches a fetch (as mapping_entity_fetch: entity, predicate, JSON arguments,
 * sort, MAPPING_FETCH_EXACT_ENTITY; no offset or limit): after every later commit, if its results
 * differ or an object in them was updated, `watch` is called with the new results and the removed,
 * inserted, moved and updated positions — the fewest moves that explain the new order. Called as
 * observers are (see mapping_context_observe). The request is checked now (MAPPING_ENAME,
 * MAPPING_EPREDICATE). @param out receives a token; mapping_context_unobserve() ends the watch.
 */
MAPPING_EXTERN int mapping_context_watch(mapping_context *ctx, const char *entity, const char *predicate,
                                         const char *arguments, const char *sort, unsigned flags,
                                         mapping_watch_fn watch, void *payload, uint64_t *out);

/** METHOD: mapping_fetch_change. The new results. @param out New: release with mapping_list_free(). */
MAPPING_EXTERN int mapping_fetch_change_results(const mapping_fetch_change *change, mapping_list **out);

/** METHOD: mapping_fetch_change. How many positions of `kind` (MAPPING_POSITION_*) the change has. */
MAPPING_EXTERN int mapping_fetch_change_count(const mapping_fetch_change *change, int kind, size_t *out);

/** METHOD: mapping_fetch_change. The position at `index` of `kind`, in ascending order; for
 *  MAPPING_POSITION_MOVED the new position, and the old one in `out_from` (may be NULL). */
MAPPING_EXTERN int mapping_fetch_change_position(const mapping_fetch_change *change, int kind, size_t index,
                                                 size_t *out, size_t *out_from);

/* ---- Queries -------------------------------------------------------------------------------- */

/**
 * METHOD: mapping_entity. The objects of `entity` and its sub-entities that match `predicate`, sorted and paged.
 * @param predicate  predicate text, NSPredicate's language (docs/queries.md): comparisons
 *                   (== != < <= > >=), AND OR NOT, IN, BETWEEN {a, b}, BEGINSWITH ENDSWITH CONTAINS
 *                   LIKE MATCHES with [c]/[d], key paths through relationships, ANY ALL NONE and
 *                   \@count, nil, literals, and %@ for arguments; NULL matches every object
 * @param arguments  a JSON array with one value per %@, bound as values (never pasted into the text);
 *                   NULL when the predicate has none
 * @param sort       comma-separated key paths, `-` first for descending ("-age,name"); NULL keeps
 *                   creation order
 * @param offset     how many matching objects to skip
 * @param limit      at most this many objects; 0 for no limit
 * @param flags      MAPPING_FETCH_* flags, or 0
 * @param out        New: release with mapping_list_free().
 * @return MAPPING_OK; MAPPING_EPREDICATE with the message naming the column (also in
 *         mapping_error_last()->column); MAPPING_ENAME for an unknown entity; MAPPING_EPARSE for
 *         arguments that are not a JSON array.
 */
MAPPING_EXTERN int mapping_entity_fetch(mapping_context *ctx, const char *entity, const char *predicate, const char *arguments,
                                        const char *sort, size_t offset, size_t limit, unsigned flags, mapping_list **out);

/** mapping_entity_fetch flags. */
typedef enum mapping_fetch_flags {
    MAPPING_FETCH_EXACT_ENTITY = 1,  /* only objects of exactly `entity`, not of its sub-entities */
} mapping_fetch_flags;

/** METHOD: mapping_entity. How many objects of `entity` (and sub-entities) match `predicate` (NULL: all). */
MAPPING_EXTERN int mapping_entity_count_where(mapping_context *ctx, const char *entity, const char *predicate,
                                              const char *arguments, size_t *out);

/* ---- Path patterns ----------------------------------------------------------------------------- */

/*
 * Path patterns with RestKit's and SOCKit's rules: `/users/:userID/articles/:slug\.json`. A parameter is
 * `:` and the longest run of letters, digits, `.`, `_`, `@` (so `:company.name` is a key path and
 * `:friends.@count` a count); `\.`, `\:`, `\@`, `\\` are literal characters; two parameters need a
 * literal between them (MAPPING_EMISUSE otherwise).
 */
typedef enum mapping_path_flags {
    MAPPING_PATH_ESCAPE = 1,  /* interpolation: percent-escape each value (all but letters, digits, -._~) */
    MAPPING_PATH_QUERY = 2,  /* matching: add the query string's parameters to the result */
} mapping_path_flags;

/** METHOD: mapping_path. Matches `path` against `pattern`: the query (after the first `?`) is set aside first; the path must
 *  have as many `/` as the pattern; each parameter is non-empty and runs to the next literal; values
 *  are percent-decoded. @param out  a JSON object of the parameters (strings). New: mapping_free().
 *  @return MAPPING_OK; MAPPING_ENOTFOUND when it does not match (out NULL). Errors: mapping_error_message(NULL). */
MAPPING_EXTERN int mapping_path_match(const char *pattern, const char *path, unsigned flags, char **out);

/** METHOD: mapping_path. Interpolates `pattern` with the values of a JSON object (dotted key paths; `(null)` for a missing
 *  one, as RestKit writes). @param out New: mapping_free(). */
MAPPING_EXTERN int mapping_path_interpolate(const char *pattern, const char *values, unsigned flags, char **out);

/** METHOD: mapping_path. Interpolates `pattern` with the attributes of a graph object (key paths through relationships,
 *  `\@count` of to-many ones). @param out New: mapping_free(). */
MAPPING_EXTERN int mapping_path_interpolate_object(mapping_context *ctx, const char *pattern, mapping_object object,
                                                   unsigned flags, char **out);

/** METHOD: mapping_query. Decodes a query string as RestKit does: pairs split on `&` and `=`, pairs without `=` ignored,
 *  percent-decoded, repeated keys as arrays, `a[]` kept as the key. @param out a JSON object. New. */
MAPPING_EXTERN int mapping_query_decode(const char *query, char **out);

/* ---- Routes ---------------------------------------------------------------------------------- */

/**
 * METHOD: mapping_route. The path of a route of the spec's `routes` section, filled from `object` (not escaped unless
 * MAPPING_PATH_ESCAPE). With `name`: that named route (`object` may be MAPPING_NO_OBJECT: the pattern as
 * written). Else with `relationship`: the route for that relationship of the object's entity and
 * `method`. Else: the route for the object's entity and `method`, looked up as RestKit does — an
 * exact method, then a method set containing it, then ANY, then the same on the parent entity.
 * @param method  "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD" or "OPTIONS"
 * @param out     New: mapping_free(). @return MAPPING_ENOTFOUND when there is no such route.
 */
MAPPING_EXTERN int mapping_route_path(mapping_context *ctx, const char *name, mapping_object object,
                                      const char *relationship, const char *method, unsigned flags, char **out);

/** METHOD: mapping_url. Resolves `reference` against `base` as RFC 3986 §5.2 does (`users/1` against
 *  `http://h/api/v1/` is `http://h/api/v1/users/1`). @param out New: mapping_free(). */
MAPPING_EXTERN int mapping_url_resolve(const char *base, const char *reference, char **out);

/* ---- Responses ------------------------------------------------------------------------------- */

/** A response the host received, for mapping_response_map(). Initialize with MAPPING_RESPONSE_INIT. */
typedef struct mapping_response {
    unsigned version;        /* MAPPING_RESPONSE_VERSION */
    const char *method;      /* "GET", "POST", ...; NULL means "GET" */
    const char *url;         /* the request URL, absolute */
    int status;              /* the HTTP status (required: 0 is refused) */
    const char *headers;     /* a JSON object readable as @metadata.HTTP.*.headers, or NULL */
    const char *body;        /* the body (JSON), or NULL / empty for none */
    size_t body_len;         /* its length, or MAPPING_NUL_TERMINATED */
    const char *base_url;    /* the base URL descriptor patterns are relative to, or NULL */
    const char *orphan_entity;     /* GET only: after mapping, objects of this entity ... */
    const char *orphan_predicate;  /* ... matching this predicate (NULL: all) that the response did not
                                      touch are deleted (RestKit's orphan deletion for GET) */
    mapping_object target;   /* the object sent (POST/PUT/PATCH), or MAPPING_NO_OBJECT: a single
                                top-level representation is mapped into it whatever its identity,
                                so a new object learns the id the server gave it */
} mapping_response;

#define MAPPING_RESPONSE_VERSION 2 /* 2 added the orphan fields and target; version-1 structs are still read */
#ifdef __cplusplus
#define MAPPING_RESPONSE_INIT { MAPPING_RESPONSE_VERSION }
#else /* designated, so -Wmissing-field-initializers has nothing to say about the fields left zero */
#define MAPPING_RESPONSE_INIT { .version = MAPPING_RESPONSE_VERSION }
#endif

/** METHOD: mapping_response. Sets every field of `response` to its default (zero: method NULL reads as "GET") and its version
 *  to `version` (1 or 2), for callers that cannot use MAPPING_RESPONSE_INIT. Writes only the fields
 *  that version has. @return MAPPING_OK; MAPPING_EMISUSE for NULL or an unknown version. */
MAPPING_EXTERN int mapping_response_init(mapping_response *response, unsigned version);

/**
 * METHOD: mapping_response. Maps a response with the spec's `responseDescriptors`: every descriptor whose methods, path
 * pattern (relative to the base URL, RestKit's rules) and status codes match contributes its key path
 * with its mapping; for one key path the most specific pattern wins (literal segments beat parameters).
 * One all-or-nothing import, with \@metadata.HTTP.{request,response}, \@metadata.routing.parameters and
 * \@metadata.query.parameters readable. An error status fails with MAPPING_ERESPONSE, its message made of
 * the payload's error messages when an error descriptor (`errorMessage`) matches.
 * @param out  the mapped objects (NULL allowed). New: mapping_list_free().
 * @return MAPPING_OK; MAPPING_ERESPONSE; MAPPING_EMAPPING when no descriptor matches; as mapping_context_import().
 */
MAPPING_EXTERN int mapping_response_map(mapping_context *ctx, const mapping_response *response, mapping_list **out);

/**
 * METHOD: mapping_list. The parameters of a request for `objects` and `method`, by the spec's `requestDescriptors`
 * (for each object's entity, or the nearest parent entity: an exact method, then a method set
 * containing it): each object written by the descriptor's mapping (nulls included), one object as an
 * object and several as an array, wrapped in the descriptor's `rootKeyPath`. With
 * MAPPING_SERIALIZE_FORM the text is `application/x-www-form-urlencoded` (RestKit's rules).
 * @param out  New: mapping_free(). @return MAPPING_ENOTFOUND when an object has no descriptor.
 */
MAPPING_EXTERN int mapping_list_parameters(mapping_context *ctx, const mapping_list *objects, const char *method, unsigned flags,
                                           char **out);

/* ---- Pagination ------------------------------------------------------------------------------ */

/**
 * METHOD: mapping_paginator. CONSTRUCTOR. A paginator for a path pattern with `:perPage`, `:currentPage` and `:offset`, e.g.
 * "/articles?per_page=:perPage&page=:currentPage". Page metadata is read from each page's body by the
 * spec's `pagination` key paths (default per_page, current_page, total_entries, total_pages, offset).
 * @param per_page  the page size asked for (0: 25). @param out New: mapping_paginator_free().
 */
MAPPING_EXTERN int mapping_paginator_new(mapping_context *ctx, const char *pattern, size_t per_page,
                                         mapping_paginator **out);

/** METHOD: mapping_paginator. DESTRUCTOR. NULL is a no-op. */
MAPPING_EXTERN void mapping_paginator_free(mapping_paginator *paginator);

/** METHOD: mapping_paginator. The path for loading `page` (1-based). @param out New: mapping_free(). */
MAPPING_EXTERN int mapping_paginator_path(mapping_paginator *paginator, size_t page, char **out);

/** METHOD: mapping_paginator. Reads the page metadata of the loaded `page`'s body (JSON). Without metadata the page count and
 *  current page become 0; with an object count but no page count, the page count is computed. */
MAPPING_EXTERN int mapping_paginator_update(mapping_paginator *paginator, size_t page, const char *body, size_t len);

/**
 * METHOD: mapping_paginator. One piece of the paginator's state: "perPage", "currentPage", "pageCount", "objectCount" (-1 while
 * unknown), "offset" (the mapped one, else (currentPage - 1) * perPage), "hasNextPage" (1/0;
 * MAPPING_EMISUSE before a page with a known count is loaded), "hasPreviousPage" (1/0).
 */
MAPPING_EXTERN int mapping_paginator_field(const mapping_paginator *paginator, const char *field, long long *out);

/* ---- Writing out ----------------------------------------------------------------------------- */

/** Serialization flags, combined with |. */
typedef enum mapping_serialize_flags {
    MAPPING_SERIALIZE_NULLS = 1,  /* write null attributes and empty to-one relationships as null */
    MAPPING_SERIALIZE_PRETTY = 2,  /* indent with two spaces */
    MAPPING_SERIALIZE_NO_ROOT = 4,  /* do not wrap the output in the mapping's rootPath */
    MAPPING_SERIALIZE_FORM = 8,  /* application/x-www-form-urlencoded instead of JSON: keys sorted,
                                    a[b]=v, a[]=v, null as a bare key, UTF-8 percent-escaping */
} mapping_serialize_flags;

/**
 * METHOD: mapping_object. Writes one object out as JSON through the named mapping, in reverse: each attribute at its key
 * path (nested key paths rebuilt as nested objects), relationships as nested objects through their
 * mappings, dates as "yyyy-MM-ddTHH:mm:ss.SSSZ", booleans as true/false, decimals with all their
 * digits. Wrapped in the mapping's rootPath unless MAPPING_SERIALIZE_NO_ROOT.
 * @param out  New: release with mapping_free().
 */
MAPPING_EXTERN int mapping_object_serialize(mapping_context *ctx, const char *mapping, mapping_object object,
                                            unsigned flags, char **out);

/** METHOD: mapping_list. The same for a list of objects, written as a JSON array. */
MAPPING_EXTERN int mapping_list_serialize(mapping_context *ctx, const char *mapping, const mapping_list *list,
                                          unsigned flags, char **out);

/** METHOD: library. Releases a string the library returned as new. NULL is a no-op. */
MAPPING_EXTERN void mapping_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* MAPPING_H */
