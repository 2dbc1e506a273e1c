/* The SQLite store against files it did not write as they are. Once, a valid store is written through
 * the library (people, companies, tags of the fuzz spec) in a temporary folder. Each input then
 * tampers with a copy of it and opens the copy through the library.
 *
 * The input is a program: its first byte picks the spec, open flags and what is committed; then each step is an opcode
 * byte and its argument bytes, run through SQLite directly (a cell set to an odd value or type, rows
 * deleted or duplicated, indexes and tables dropped, columns renamed, dropped or added, the recorded
 * format and spec rewritten, the schema itself rewritten, the journal mode or page size changed),
 * and byte flips or a truncation applied to the file (or its write-ahead log) once SQLite is done.
 *
 * Promises: every call returns a declared status; a failed open returns no context and
 * MAPPING_ESTORE or MAPPING_ESPEC, with that code and a message in mapping_error_last(NULL); a
 * successful open gives a graph whose reads work (every object's values and relationships read,
 * identities find their objects, inverses agree unless bytes of the file were flipped or cut); a
 * store opened read-only refuses a commit that changes something; what a commit wrote is there
 * when the file is opened again (or the file's damage is found then, MAPPING_ESTORE); no call
 * leaves a file descriptor open on the store.
 *
 * To read a finding: built with -DFUZZ_STORE_DEBUG, the driver prints each SQL statement
 * (FUZZ_STORE_VERBOSE=1, with the open's error), saves the tampered file before the library opens it
 * (FUZZ_STORE_SAVE=path, and path-wal), and counts the open outcomes at exit. */
#include "fuzz_common.h"

#include <dirent.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

static char folder[256], path[300], wal[310], shm[310], journal[310];
/* Whether this input flipped bytes of the file or cut it short: SQLite then answers from a damaged
 * B-tree without noticing (an index may still hold a value its row lost), so relationships read
 * through an index and through the row need not agree; everything else is still promised. */
static int damaged;
static uint8_t *template_bytes;
static size_t template_size;
static char *grown_spec, *changed_spec;
/* 70 new people (ids 1000000007 on), for the inputs whose commit writes new rows several to an
 * INSERT (64, then 8, then one at a time). */
static char *many_people;

/* Extra people for the template besides fuzz_people: extreme values, a second company. */
static const char *more_people =
    "[{\"id\": 4, \"name\": \"\", \"score\": -0.0, \"info\": {\"age\": 9223372036854775807}, \"on\": false,"
    "  \"at\": 253402300799, \"data\": [null, \"x\", {\"y\": {}}], \"tags\": [\"math\", \"cobol\"],"
    "  \"company\": {\"id\": \"c2\", \"name\": \"Z\"}, \"friend_ids\": [1, 4]},"
    " {\"id\": -5, \"name\": \"\\ud83e\\udd16\", \"price\": \"-0.000000000000000000001\", \"company\": {\"id\": \"c2\"}}]";

/* ---- Setting up ----------------------------------------------------------------------------- */

/* `text` with its one occurrence of `from` replaced by `to`. New: free(). */
static char *replaced(const char *text, const char *from, const char *to) {
    const char *at = strstr(text, from);
    FUZZ_ASSERT(at != NULL);
    size_t head = (size_t)(at - text), length = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(length + 1);
    if (!out) abort();
    memcpy(out, text, head);
    strcpy(out + head, to);
    strcat(out, at + strlen(from));
    return out;
}

/* How many file descriptors of this process are open on the store's files (the folder's), printing
 * them when `show`. */
static int store_fds(int show) {
    DIR *fds = opendir("/proc/self/fd");
    if (!fds) return 0;
    int count = 0;
    for (struct dirent *entry; (entry = readdir(fds));) {
        char link[300], target[600] = "";
        snprintf(link, sizeof link, "/proc/self/fd/%s", entry->d_name);
        ssize_t length = readlink(link, target, sizeof target - 1);
        if (length <= 0) continue;
        target[length] = '\0';
        if (strncmp(target, folder, strlen(folder)) != 0) continue;
        count++;
        if (show) fprintf(stderr, "  file descriptor %s is open on %s\n", entry->d_name, target);
    }
    closedir(fds);
    return count;
}

static void remove_work_files(void) {
    unlink(path);
    unlink(wal);
    unlink(shm);
    unlink(journal);
}

static void cleanup(void) {
    remove_work_files();
    rmdir(folder);
    free(template_bytes);
    free(grown_spec);
    free(changed_spec);
    free(many_people);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(folder, sizeof folder, "%s/fuzz_store.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    FUZZ_ASSERT(mkdtemp(folder) != NULL);
    snprintf(path, sizeof path, "%s/store.db", folder);
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(shm, sizeof shm, "%s-shm", path);
    snprintf(journal, sizeof journal, "%s-journal", path);
    atexit(cleanup);

    /* A spec that grew (an attribute, an entity: the store is brought up to it) and one that changed
     * beyond growth (a type: refused, or rebuilt with MAPPING_OPEN_REBUILD). */
    grown_spec = replaced(fuzz_spec, "\"Company\": {\"attributes\": {\"id\": \"string\", \"name\": \"string\"}",
                          "\"Company\": {\"attributes\": {\"id\": \"string\", \"name\": \"string\", \"founded\": \"date\"}");
    char *with_badge = replaced(grown_spec, "\"Tag\": {\"attributes\": {\"label\": \"string\"}, \"identification\": \"label\"}",
                                "\"Tag\": {\"attributes\": {\"label\": \"string\"}, \"identification\": \"label\"},"
                                " \"Badge\": {\"attributes\": {\"code\": \"integer\"}, \"identification\": \"code\"}");
    free(grown_spec);
    grown_spec = with_badge;
    changed_spec = replaced(fuzz_spec, "\"age\": {\"type\": \"integer\"", "\"age\": {\"type\": \"string\"");
    size_t capacity = 70 * 160 + 8, used = 0;
    many_people = malloc(capacity);
    FUZZ_ASSERT(many_people != NULL);
    used += (size_t)snprintf(many_people + used, capacity - used, "[");
    for (int i = 0; i < 70; i++) {
        used += (size_t)snprintf(many_people + used, capacity - used,
                                 "%s{\"id\": %d, \"name\": \"new %d\", \"company\": {\"id\": \"c%d\"}, \"tags\": [\"t%d\"], \"friend_ids\": [1]}",
                                 i ? ", " : "", 1000000007 + i, i, i % 3, i % 5);
        FUZZ_ASSERT(used < capacity);
    }
    snprintf(many_people + used, capacity - used, "]");

    /* The template: written through the library, then read into memory. */
    mapping_context *ctx = NULL;
    FUZZ_ASSERT(mapping_context_open(fuzz_spec, MAPPING_NUL_TERMINATED, path, MAPPING_OPEN_CREATE, &ctx) == MAPPING_OK);
    FUZZ_ASSERT(mapping_context_import(ctx, "person", fuzz_people, MAPPING_NUL_TERMINATED, NULL) == MAPPING_OK);
    FUZZ_ASSERT(mapping_context_import(ctx, "person", more_people, MAPPING_NUL_TERMINATED, NULL) == MAPPING_OK);
    FUZZ_ASSERT(mapping_context_import(ctx, "tag", "[\"unused\", \"\"]", MAPPING_NUL_TERMINATED, NULL) == MAPPING_OK);
    mapping_context_free(ctx);
    FUZZ_ASSERT(access(wal, F_OK) != 0);  /* closing checkpointed the log into the file */
    FILE *file = fopen(path, "rb");
    FUZZ_ASSERT(file != NULL);
    fseek(file, 0, SEEK_END);
    template_size = (size_t)ftell(file);
    fseek(file, 0, SEEK_SET);
    template_bytes = malloc(template_size);
    FUZZ_ASSERT(template_bytes && fread(template_bytes, 1, template_size, file) == template_size);
    fclose(file);
    FUZZ_ASSERT(store_fds(0) == 0);
    return 0;
}

/* ---- The tampering program -------------------------------------------------------------------- */

typedef struct program {
    const uint8_t *data;
    size_t size;
} program;

static uint8_t next(program *p) {
    if (p->size == 0) return 0;
    p->size--;
    return *p->data++;
}

static const char *tables[] = {"Person", "Company", "Tag", "Person_tags", "Person_friends", "_mapping"};
#define TABLES (sizeof tables / sizeof tables[0])

/* Values a cell is set to: every storage class, the edges of each, text where numbers are kept and
 * numbers where text is, invalid UTF-8, malformed and deeply nested JSON, dangling and duplicate
 * links. ?1 is text from the input, ?2 a blob from the input. */
static const char *cell_values[] = {
    "NULL", "0", "-1", "1", "2", "3", "9223372036854775807", "-9223372036854775808", "4611686018427387904",
    "1e308", "-1e308", "-0.0", "0.5", "'abc'", "''", "'1'", "'-0'", "' 7'", "x'ff80fe'", "CAST(x'c328ff' AS TEXT)",
    "x''", "CAST(x'610062' AS TEXT)", "'{\"k\": '", "'[1, 2'", "'{\"a\": [1, {\"b\": null}], \"c\": \"\\u0000\"}'",
    "'nan'", "'1e400'", "'1815-12-10T00:00:00Z'", "'12345678901234567890.123456789'", "'Person'", "'Company'",
    "'Tag'", "'Nope'", "1000", "(SELECT max(_id) FROM \"Person\")", "(SELECT min(_id) FROM \"Person\")",
    "(SELECT max(_id) FROM \"Tag\")", "(SELECT max(_id) FROM \"Company\")", "printf('%.*c', 100000, 'x')",
    "zeroblob(10)", "printf('%.*c', 300, '[') || printf('%.*c', 300, ']')",
    "printf('%.*c', 100000, '[') || printf('%.*c', 100000, ']')",
    "replace(printf('%.*c', 2000, 'x'), 'x', '{\"a\":') || '1' || printf('%.*c', 2000, '}')",
    "'[' || printf('%.*c', 5000, '1') || ']'", "'\"\\ud800\"'", "253402300800000001", "-62135596800000001", "?1", "?2",
};
#define CELL_VALUES (sizeof cell_values / sizeof cell_values[0])

/* A value expression; `text` and `blob` are set when it names ?1 or ?2 (their bytes from the input). */
typedef struct value {
    const char *sql;
    const uint8_t *bytes;
    size_t length;
} value;

static value next_value(program *p) {
    value v = {cell_values[next(p) % CELL_VALUES], NULL, 0};
    if (v.sql[0] == '?') {
        v.length = next(p) % 64;
        if (v.length > p->size) v.length = p->size;
        v.bytes = p->data;
        p->data += v.length;
        p->size -= v.length;
    }
    return v;
}

/* Runs one statement, the value (if any) bound; a statement SQLite refuses is simply skipped. */
static void run(sqlite3 *db, const char *sql, const value *v) {
#ifdef FUZZ_STORE_DEBUG
    if (getenv("FUZZ_STORE_VERBOSE")) fprintf(stderr, "sql: %s\n", sql);
#endif
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK) return;
    if (v && v->sql[0] == '?') {
        if (v->sql[1] == '1') sqlite3_bind_text(statement, 1, (const char *)v->bytes, (int)v->length, SQLITE_TRANSIENT);
        else sqlite3_bind_blob(statement, 2, v->bytes, (int)v->length, SQLITE_TRANSIENT);
    }
    while (sqlite3_step(statement) == SQLITE_ROW) {}
    sqlite3_finalize(statement);
}

/* Each table's column names as they are now, read once per input and again after a step that may
 * change them (`forget_columns`): looking them up for every step (64 times for a copied row) was a
 * tenth of the driver's time. */
static struct {
    char names[32][64];
    int count;
    int known;
} columns_of[TABLES];

static void forget_columns(void) {
    for (size_t t = 0; t < TABLES; t++) columns_of[t].known = 0;
}

/* The name of the table's column at `index` (modulo their count) as it is now, or 0 if none. */
static int column(sqlite3 *db, const char *table, uint8_t index, char *out, size_t size) {
    size_t t = 0;
    while (t < TABLES && strcmp(tables[t], table) != 0) t++;
    FUZZ_ASSERT(t < TABLES);
    if (!columns_of[t].known) {
        columns_of[t].count = 0;
        columns_of[t].known = 1;
        sqlite3_stmt *statement = NULL;
        if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1)", -1, &statement, NULL) != SQLITE_OK) return 0;
        sqlite3_bind_text(statement, 1, table, -1, SQLITE_STATIC);
        while (columns_of[t].count < 32 && sqlite3_step(statement) == SQLITE_ROW) {
            const unsigned char *name = sqlite3_column_text(statement, 0);
            snprintf(columns_of[t].names[columns_of[t].count++], sizeof columns_of[t].names[0], "%s", name ? (const char *)name : "");
        }
        sqlite3_finalize(statement);
    }
    if (columns_of[t].count == 0) return 0;
    snprintf(out, size, "%s", columns_of[t].names[index % columns_of[t].count]);
    return 1;
}

/* The name of the index at `index` (modulo their count), or 0 if there is none. */
static int index_name(sqlite3 *db, uint8_t index, char *out, size_t size) {
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%%' "
                              "ORDER BY name LIMIT 1 OFFSET %d", index % 8);
    sqlite3_stmt *statement = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK) return 0;
    if (sqlite3_step(statement) == SQLITE_ROW) {
        snprintf(out, size, "%s", (const char *)sqlite3_column_text(statement, 0));
        found = 1;
    }
    sqlite3_finalize(statement);
    return found;
}

typedef struct flip {
    size_t offset;
    uint8_t mask;
    int in_log;
} flip;

#define MAX_STEPS 24
#define MAX_FLIPS 16

typedef struct tampering {
    flip flips[MAX_FLIPS];
    int flip_count;
    long truncate_to;  /* -1: not truncated */
} tampering;

static void step_once(sqlite3 *db, program *p, tampering *t, uint8_t op);

/* One step; the column names are read again after a step that renames, drops or adds columns or
 * tables or rewrites the schema. */
static void step(sqlite3 *db, program *p, tampering *t) {
    uint8_t op = next(p);
    step_once(db, p, t, op);
    switch (op % 16) {
    case 6: case 7: case 8: case 9: case 11: case 12: forget_columns(); break;
    default: break;
    }
}

static void step_once(sqlite3 *db, program *p, tampering *t, uint8_t op) {
    char sql[600], name[64], other[64];
    const char *table = tables[next(p) % TABLES];
    switch (op % 16) {
    case 0:
    case 1: {  /* one cell */
        if (!column(db, table, next(p), name, sizeof name)) return;
        value v = next_value(p);
        snprintf(sql, sizeof sql, "UPDATE \"%s\" SET \"%s\" = %s WHERE rowid = (SELECT rowid FROM \"%s\" LIMIT 1 OFFSET %d)",
                 table, name, v.sql, table, next(p) % 8);
        run(db, sql, &v);
        return;
    }
    case 2: {  /* a column of every row */
        if (!column(db, table, next(p), name, sizeof name)) return;
        value v = next_value(p);
        snprintf(sql, sizeof sql, "UPDATE \"%s\" SET \"%s\" = %s", table, name, v.sql);
        run(db, sql, &v);
        return;
    }
    case 3:  /* a row deleted: links to it dangle */
        snprintf(sql, sizeof sql, "DELETE FROM \"%s\" WHERE rowid = (SELECT rowid FROM \"%s\" LIMIT 1 OFFSET %d)", table, table,
                 next(p) % 8);
        run(db, sql, NULL);
        return;
    case 4: {  /* a row copied (a new _id; join rows at a new position): duplicate identities, repeated targets */
        char columns[400] = "", selected[400] = "";
        for (uint8_t i = 0; i < 32 && column(db, table, i, name, sizeof name); i++) {
            if (i > 0 && column(db, table, 0, other, sizeof other) && strcmp(other, name) == 0) break;  /* wrapped around */
            if (strcmp(name, "_id") == 0) continue;
            size_t used = strlen(columns);
            snprintf(columns + used, sizeof columns - used, "%s\"%s\"", used ? ", " : "", name);
            used = strlen(selected);
            snprintf(selected + used, sizeof selected - used, "%s\"%s\"%s", used ? ", " : "", name,
                     strcmp(name, "position") == 0 ? " + 1000" : "");
        }
        if (!columns[0]) return;
        snprintf(sql, sizeof sql, "INSERT INTO \"%s\" (%s) SELECT %s FROM \"%s\" LIMIT 1 OFFSET %d", table, columns, selected,
                 table, next(p) % 8);
        run(db, sql, NULL);
        return;
    }
    case 5:  /* an index dropped (identities may then repeat) */
        if (!index_name(db, next(p), name, sizeof name)) return;
        snprintf(sql, sizeof sql, "DROP INDEX \"%s\"", name);
        run(db, sql, NULL);
        return;
    case 6: {  /* a column renamed: to a new name, or to one the spec uses elsewhere */
        static const char *names[] = {"%s_renamed", "id", "_id", "name", "label", "position", "owner", "target", "staff", "company"};
        if (!column(db, table, next(p), name, sizeof name)) return;
        char to[80];
        snprintf(to, sizeof to, names[next(p) % 10], name);
        snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" RENAME COLUMN \"%s\" TO \"%s\"", table, name, to);
        run(db, sql, NULL);
        return;
    }
    case 7:  /* a column dropped */
        if (!column(db, table, next(p), name, sizeof name)) return;
        snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" DROP COLUMN \"%s\"", table, name);
        run(db, sql, NULL);
        return;
    case 8: {  /* a column added */
        static const char *columns[] = {"\"extra\" TEXT", "\"founded\" INTEGER", "\"code\" TEXT", "\"n\" INTEGER NOT NULL DEFAULT 7",
                                        "\"staff\" INTEGER", "\"friends_position\" INTEGER"};
        snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" ADD COLUMN %s", table, columns[next(p) % 6]);
        run(db, sql, NULL);
        return;
    }
    case 9:  /* a table dropped, or renamed away */
        if (next(p) & 1) snprintf(sql, sizeof sql, "DROP TABLE \"%s\"", table);
        else snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" RENAME TO \"%s_old\"", table, table);
        run(db, sql, NULL);
        return;
    case 10: {  /* the recorded format and spec */
        static const char *edits[][2] = {{"integer", "string"}, {"\"identification\":\"id\"", "\"identification\":\"name\""},
                                         {"Person", "People"}, {"\"toMany\":true", "\"toMany\":false"}, {"staff", "crew"},
                                         {"cascade", "deny"}, {"indexed", "x"}, {"{", "["}, {":", ","}, {"\"Tag\"", "\"Badge\""}};
        uint8_t what = next(p);
        switch (what % 7) {
        case 0:
        case 1: {
            value v = next_value(p);
            snprintf(sql, sizeof sql, "UPDATE _mapping SET value = %s WHERE key = '%s'", v.sql, what % 7 ? "spec" : "format");
            run(db, sql, &v);
            return;
        }
        case 2: {
            const char **edit = edits[next(p) % 10];
            snprintf(sql, sizeof sql, "UPDATE _mapping SET value = replace(value, '%s', '%s') WHERE key = 'spec'", edit[0], edit[1]);
            run(db, sql, NULL);
            return;
        }
        case 3:
            snprintf(sql, sizeof sql, "UPDATE _mapping SET value = substr(value, 1, %d) WHERE key = 'spec'", next(p) * 8);
            run(db, sql, NULL);
            return;
        case 4:
            snprintf(sql, sizeof sql, "DELETE FROM _mapping WHERE key = '%s'", next(p) & 1 ? "spec" : "format");
            run(db, sql, NULL);
            return;
        case 5: {
            value v = next_value(p);
            snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO _mapping (key, value) VALUES ('%s', %s)", next(p) & 1 ? "format" : "other",
                     v.sql);
            run(db, sql, &v);
            return;
        }
        default:
            run(db, "UPDATE _mapping SET key = 'spec2' WHERE key = 'spec'", NULL);
            return;
        }
    }
    case 11: {  /* the schema text itself */
        static const char *edits[][2] = {{"INTEGER", "TEXT"}, {"TEXT", "INTEGER"}, {"UNIQUE ", ""}, {"PRIMARY KEY", ""},
                                         {"\"_id\"", "\"id_\""}, {"NOT NULL", ""}, {"REFERENCES", ", x"}, {"(", "(("}};
        const char **edit = edits[next(p) % 8];
        run(db, "PRAGMA writable_schema = ON", NULL);
        snprintf(sql, sizeof sql, "UPDATE sqlite_master SET sql = replace(sql, '%s', '%s') WHERE tbl_name = '%s'", edit[0], edit[1],
                 table);
        run(db, sql, NULL);
        run(db, "PRAGMA writable_schema = OFF", NULL);
        return;
    }
    case 12: {  /* the file's format */
        static const char *pragmas[] = {"PRAGMA journal_mode = DELETE", "PRAGMA journal_mode = WAL", "PRAGMA user_version = 7",
                                        "PRAGMA application_id = -1", "PRAGMA page_size = 512; VACUUM",
                                        "PRAGMA auto_vacuum = FULL; VACUUM", "PRAGMA page_size = 65536; VACUUM", "REINDEX"};
        const char *sql_text = pragmas[next(p) % 8];
        sqlite3_exec(db, sql_text, NULL, NULL, NULL);
        return;
    }
    case 13:
    case 14: {  /* a byte of the file (or its log) flipped, once SQLite is done; the header more often */
        if (t->flip_count == MAX_FLIPS) return;
        uint8_t high = next(p), low = next(p), mask = next(p);
        flip *f = &t->flips[t->flip_count++];
        f->offset = high == 0 ? low % 100 : ((size_t)high << 8 | low);
        f->mask = mask ? mask : 0xff;
        f->in_log = op % 16 == 14;
        return;
    }
    default: {  /* the file cut short: to whole pages or mid-page */
        uint8_t size = next(p);
        t->truncate_to = size & 0x80 ? (long)(size & 0x7f) * 4096 : (long)template_size - size;
        return;
    }
    }
}

static void apply(const char *file, const flip *f) {
    int fd = open(file, O_RDWR);
    if (fd < 0) return;
    struct stat info;
    if (fstat(fd, &info) == 0 && info.st_size > 0) {
        off_t offset = (off_t)(f->offset % (size_t)info.st_size);
        uint8_t byte;
        if (pread(fd, &byte, 1, offset) == 1) {
            byte ^= f->mask;
            FUZZ_ASSERT(pwrite(fd, &byte, 1, offset) == 1);
        }
    }
    close(fd);
}

/* ---- Reading what was opened ------------------------------------------------------------------ */

static int find_in(const mapping_list *list, mapping_object object) {
    size_t count = mapping_list_count(list);
    for (size_t i = 0; i < count; i++) {
        mapping_object at = MAPPING_NO_OBJECT;
        FUZZ_ASSERT(mapping_list_at(list, i, &at) == MAPPING_OK);
        if (at == object) return 1;
    }
    return 0;
}

/* Rows are checked as they are read, so any read may be the one that meets a tampered row: it
 * fails with MAPPING_ESTORE and a message, and the reading stops there (what it read stays valid).
 * A damaged file may also list rows its table cannot give (found by fuzzing): a handle to such a
 * row reads as deleted (MAPPING_ESTALE), as a handle to a row that is gone does (links to rows
 * that are gone are dropped: stores written before deletes cleared them hold some). Any other
 * failure is a finding. */
#define READ(call)                                      \
    do {                                                \
        int read_ = (call);                             \
        if (read_ == MAPPING_ESTORE || (damaged && read_ == MAPPING_ESTALE)) { \
            fuzz_status(ctx, read_);                    \
            goto tampered;                              \
        }                                               \
        if (read_ != MAPPING_OK)                        \
            fprintf(stderr, "read: %s %s\n", mapping_error_name(read_), mapping_error_message(ctx)); \
        FUZZ_ASSERT(read_ == MAPPING_OK);               \
    } while (0)

/* Every read of every object (the first 64 of each entity) works, or meets a tampered row. */
static void read_graph(mapping_context *ctx) {
    const char *entities[] = {"Person", "Company", "Tag"};
    mapping_list *all = NULL, *targets = NULL, *staff = NULL;
    char *json = NULL, *identity = NULL, *out = NULL;
    for (int e = 0; e < 3; e++) {
        const char *entity = entities[e];
        size_t count = 0, attributes = 0, relationships = 0, identification = 0;
        READ(mapping_entity_count(ctx, entity, &count));
        FUZZ_ASSERT(mapping_entity_attribute_count(ctx, entity, &attributes) == MAPPING_OK);
        FUZZ_ASSERT(mapping_entity_relationship_count(ctx, entity, &relationships) == MAPPING_OK);
        FUZZ_ASSERT(mapping_entity_identification_count(ctx, entity, &identification) == MAPPING_OK);
        READ(mapping_entity_all(ctx, entity, &all));
        FUZZ_ASSERT(mapping_list_count(all) == count);
        for (size_t i = 0; i < count && i < 64; i++) {
            mapping_object object = MAPPING_NO_OBJECT;
            READ(mapping_list_at(all, i, &object));
            READ(mapping_object_check(ctx, object));
            const char *name = NULL;
            READ(mapping_object_entity(ctx, object, &name));
            FUZZ_ASSERT(strcmp(name, entity) == 0);
            for (size_t a = 0; a < attributes; a++) {
                const char *attribute = NULL;
                int type = 0;
                bool null = false;
                FUZZ_ASSERT(mapping_entity_attribute_name(ctx, entity, a, &attribute) == MAPPING_OK);
                FUZZ_ASSERT(mapping_entity_attribute_type(ctx, entity, attribute, &type) == MAPPING_OK);
                READ(mapping_object_is_null(ctx, object, attribute, &null));
                int rc = mapping_object_get_json(ctx, object, attribute, &json);
                if (rc != MAPPING_OK && rc != MAPPING_ESTORE)
                    fprintf(stderr, "%s.%s: %s\n", entity, attribute, mapping_error_message(ctx));
                READ(rc);
                FUZZ_ASSERT(json != NULL);
                FUZZ_ASSERT(null == (strcmp(json, "null") == 0));
                mapping_free(json);
                json = NULL;
                const char *text = NULL;
                int64_t integer = 0;
                double real = 0;
                bool boolean = false;
                switch (type) {
                case MAPPING_TYPE_STRING: rc = mapping_object_get_string(ctx, object, attribute, &text, NULL); break;
                case MAPPING_TYPE_INTEGER: rc = mapping_object_get_int64(ctx, object, attribute, &integer); break;
                case MAPPING_TYPE_DOUBLE: rc = mapping_object_get_double(ctx, object, attribute, &real); break;
                case MAPPING_TYPE_DECIMAL: rc = mapping_object_get_decimal(ctx, object, attribute, &text); break;
                case MAPPING_TYPE_BOOLEAN: rc = mapping_object_get_bool(ctx, object, attribute, &boolean); break;
                case MAPPING_TYPE_DATE: rc = mapping_object_get_date(ctx, object, attribute, &real); break;
                default: rc = null ? MAPPING_ENULL : MAPPING_OK; break;
                }
                READ(rc == MAPPING_ENULL && null ? MAPPING_OK : rc);
                FUZZ_ASSERT(rc == (null ? MAPPING_ENULL : MAPPING_OK));
            }
            /* Its identity finds it: one object per identity. */
            if (identification == 1) {
                const char *attribute = NULL;
                FUZZ_ASSERT(mapping_entity_identification_name(ctx, entity, 0, &attribute) == MAPPING_OK);
                READ(mapping_object_get_json(ctx, object, attribute, &identity));
                if (strcmp(identity, "null") != 0) {
                    mapping_object found = MAPPING_NO_OBJECT;
                    int rc = mapping_entity_find(ctx, entity, identity, &found);
                    if ((rc != MAPPING_OK && rc != MAPPING_ESTORE) || (rc == MAPPING_OK && found != object))
                        fprintf(stderr, "%s %s finds %s (another object: %d)\n", entity, identity, mapping_error_name(rc),
                                found != object);
                    READ(rc);
                    FUZZ_ASSERT(found == object);
                }
                mapping_free(identity);
                identity = NULL;
            }
            for (size_t r = 0; r < relationships; r++) {
                const char *relationship = NULL;
                bool to_many = false;
                FUZZ_ASSERT(mapping_entity_relationship_name(ctx, entity, r, &relationship) == MAPPING_OK);
                FUZZ_ASSERT(mapping_entity_relationship_is_to_many(ctx, entity, relationship, &to_many) == MAPPING_OK);
                if (to_many) {
                    READ(mapping_object_related_list(ctx, object, relationship, &targets));
                    for (size_t k = 0; k < mapping_list_count(targets) && k < 64; k++) {
                        mapping_object target = MAPPING_NO_OBJECT;
                        READ(mapping_list_at(targets, k, &target));
                        READ(mapping_object_check(ctx, target));
                        if (strcmp(relationship, "staff") == 0) {  /* the inverse agrees */
                            mapping_object company = MAPPING_NO_OBJECT;
                            READ(mapping_object_related(ctx, target, "company", &company));
                            FUZZ_ASSERT(damaged || company == object);
                        }
                    }
                    mapping_list_free(targets);
                    targets = NULL;
                } else {
                    mapping_object target = MAPPING_NO_OBJECT;
                    READ(mapping_object_related(ctx, object, relationship, &target));
                    if (target != MAPPING_NO_OBJECT) {
                        READ(mapping_object_check(ctx, target));
                        if (strcmp(relationship, "company") == 0) {  /* the inverse agrees */
                            READ(mapping_object_related_list(ctx, target, "staff", &staff));
                            FUZZ_ASSERT(damaged || find_in(staff, object));
                            mapping_list_free(staff);
                            staff = NULL;
                        }
                    }
                }
            }
        }
        const char *mappings[] = {"person", "company", "tag"};
        READ(mapping_list_serialize(ctx, mappings[e], all, MAPPING_SERIALIZE_NULLS, &out));
        mapping_free(out);
        out = NULL;
        mapping_list_free(all);
        all = NULL;
    }
    mapping_list *found = NULL;
    int rc = mapping_entity_fetch(ctx, "Person", "age > 30 OR company.name BEGINSWITH 'A' OR ANY tags.label == 'math'", NULL,
                                  "-age,name", 0, 0, 0, &found);
    fuzz_status(ctx, rc);
    mapping_list_free(found);
    return;
tampered:
    mapping_list_free(all);
    mapping_list_free(targets);
    mapping_list_free(staff);
    mapping_free(json);
    mapping_free(identity);
    mapping_free(out);
}

/* ---- One input ----------------------------------------------------------------------------------- */

#ifdef FUZZ_STORE_DEBUG
static unsigned long outcomes[32];
static void print_outcomes(void) {
    for (int code = 0; code < 32; code++)
        if (outcomes[code]) fprintf(stderr, "open %s: %lu\n", mapping_error_name(-code), outcomes[code]);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
#ifdef FUZZ_STORE_DEBUG
    static int registered;
    if (!registered++) atexit(print_outcomes);
#endif
    program p = {data, size};
    uint8_t setup = next(&p);
    const char *spec = (setup & 3) == 2 ? grown_spec : (setup & 3) == 3 ? changed_spec : fuzz_spec;
    unsigned flags = (setup & 4 ? MAPPING_OPEN_READONLY : 0) | (setup & 8 ? MAPPING_OPEN_REBUILD : 0) |
                     (setup & 16 ? MAPPING_OPEN_DURABLE : 0);
    int keep_log = (setup & 32) != 0;
    int many = (setup & 128) != 0;

    /* The copy, tampered with. */
    remove_work_files();
    FILE *file = fopen(path, "wb");
    FUZZ_ASSERT(file && fwrite(template_bytes, 1, template_size, file) == template_size);
    fclose(file);
    tampering t = {.flip_count = 0, .truncate_to = -1};
    forget_columns();
    sqlite3 *db = NULL;
    FUZZ_ASSERT(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK);
    /* Left with its write-ahead log (not checkpointed on close), the file opens through recovery. */
    if (keep_log) sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    for (int steps = 0; steps < MAX_STEPS && p.size > 0; steps++) step(db, &p, &t);
    FUZZ_ASSERT(sqlite3_close(db) == SQLITE_OK);
    for (int i = 0; i < t.flip_count; i++) apply(t.flips[i].in_log ? wal : path, &t.flips[i]);
    if (t.truncate_to >= 0) FUZZ_ASSERT(truncate(path, t.truncate_to) == 0);
    damaged = t.flip_count > 0 || t.truncate_to >= 0;

#ifdef FUZZ_STORE_DEBUG
    /* FUZZ_STORE_SAVE=FILE: a copy of the tampered store (and its log) for reproducing outside. */
    const char *save = getenv("FUZZ_STORE_SAVE");
    if (save) {
        char command[1200];
        snprintf(command, sizeof command, "cp '%s' '%s'; if [ -f '%s' ]; then cp '%s' '%s-wal'; fi", path, save, wal, wal, save);
        FUZZ_ASSERT(system(command) == 0);
    }
#endif
    /* Opened through the library. */
    mapping_context *ctx = NULL;
    int rc = mapping_context_open(spec, MAPPING_NUL_TERMINATED, path, flags, &ctx);
    FUZZ_ASSERT(fuzz_known(rc));
#ifdef FUZZ_STORE_DEBUG
    outcomes[-rc & 31]++;
    if (getenv("FUZZ_STORE_VERBOSE") && rc != MAPPING_OK) fprintf(stderr, "open: %s %s\n", mapping_error_name(rc), mapping_error_message(NULL));
#endif
    if (rc != MAPPING_OK) {
        /* A file that cannot be used, or a spec it cannot take; MAPPING_EBUSY (the file open in
         * another context) and MAPPING_EMISUSE (bad arguments) have no cause here. */
        if (rc != MAPPING_ESTORE && rc != MAPPING_ESPEC) fprintf(stderr, "open: %s %s\n", mapping_error_name(rc), mapping_error_message(NULL));
        FUZZ_ASSERT(rc == MAPPING_ESTORE || rc == MAPPING_ESPEC);
        FUZZ_ASSERT(ctx == NULL);
        FUZZ_ASSERT(mapping_error_last(NULL)->code == rc);
        FUZZ_ASSERT(mapping_error_message(NULL)[0] != '\0');
    } else {
        FUZZ_ASSERT(ctx != NULL);
        read_graph(ctx);
        /* A commit that makes a new person (or 70, written several to an INSERT): refused by a
         * read-only store; else kept in the file. */
        mapping_object existing = MAPPING_NO_OBJECT;
        int absent = mapping_entity_find(ctx, "Person", "1000000007", &existing) == MAPPING_ENOTFOUND;
        int imported = mapping_context_import(ctx, "person",
                                              many ? many_people
                                                   : "{\"id\": 1000000007, \"name\": \"new\", \"company\": {\"id\": \"c1\"},"
                                                     " \"tags\": [\"math\", \"fresh\"], \"friend_ids\": [1]}",
                                              MAPPING_NUL_TERMINATED, NULL);
        fuzz_status(ctx, imported);
        if ((flags & MAPPING_OPEN_READONLY) && absent) FUZZ_ASSERT(imported != MAPPING_OK);
        /* The count is the database's: on a file whose pages were flipped it may meet one the open
         * and the reads above did not (found by fuzzing), which is a tampered store too. */
        size_t people = 0;
        int counted = mapping_entity_count(ctx, "Person", &people);
        fuzz_status(ctx, counted);
        FUZZ_ASSERT(counted == MAPPING_OK || counted == MAPPING_ESTORE);
        mapping_context_free(ctx);
        /* What the commit wrote is there when the file is opened again (for the inputs that ask: an
         * open is most of an input's time). */
        if (imported == MAPPING_OK && counted == MAPPING_OK && !(flags & MAPPING_OPEN_READONLY) && (setup & 64)) {
            ctx = NULL;
            rc = mapping_context_open(spec, MAPPING_NUL_TERMINATED, path, 0, &ctx);
            /* Damage the first open did not read (it reads no rows) may surface now, as
             * MAPPING_ESTORE ("database disk image is malformed": found by fuzzing, not
             * reproducible alone); anything else is the commit's fault. */
            if (rc != MAPPING_OK && rc != MAPPING_ESTORE) fprintf(stderr, "opening again: %s\n", mapping_error_message(NULL));
            FUZZ_ASSERT(rc == MAPPING_OK || rc == MAPPING_ESTORE);
            if (rc == MAPPING_OK) {
                size_t again = 0;
                FUZZ_ASSERT(mapping_entity_count(ctx, "Person", &again) == MAPPING_OK);
                FUZZ_ASSERT(again == people);
                /* Rows are read as they are touched: on a file whose pages were flipped, the lookup
                 * through the identity index may meet damage nothing read before did ("database
                 * disk image is malformed", found by fuzzing: the commit had written into a B-tree
                 * already out of order), which is a tampered store too; on an undamaged file the
                 * rows written are there. */
                int first = mapping_entity_find(ctx, "Person", "1000000007", &existing);
                int last = many ? mapping_entity_find(ctx, "Person", "1000000076", &existing) : MAPPING_OK;
                fuzz_status(ctx, first);
                FUZZ_ASSERT(first == MAPPING_OK || (damaged && first == MAPPING_ESTORE));
                FUZZ_ASSERT(last == MAPPING_OK || (damaged && last == MAPPING_ESTORE));
                read_graph(ctx);
                mapping_context_free(ctx);
            }
        }
    }
    if (store_fds(0) != 0) {
        store_fds(1);
        FUZZ_ASSERT(store_fds(0) == 0);
    }
    return 0;
}
