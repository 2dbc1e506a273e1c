/* SQLite's C API for the store (Debian's libsqlite3-dev). SQLITE_TRANSIENT is a cast macro Swift
 * cannot import; this constant stands for it. */
#include <sqlite3.h>

static const sqlite3_destructor_type mapping_sqlite_transient = SQLITE_TRANSIENT;

/* glibc's malloc_trim, which Swift's Glibc module leaves out: after a store's rows are loaded into
 * the graph, the memory they were read into goes back to the system. */
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif

/* Double-quoted text is an identifier only: by default SQLite reads an unknown quoted identifier as a
 * string literal, so a column renamed outside libmapping would read back as its own name in every
 * row. sqlite3_db_config is variadic, which Swift cannot call. */
static inline int mapping_sqlite_strict_quotes(sqlite3 *db) {
    int dml = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    int ddl = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
    return dml != SQLITE_OK ? dml : ddl;
}

/* Whether a path exists, and whether this process may read and write it: what SQLite's "unable to
 * open database file" leaves unsaid, for the store's error message. */
#include <unistd.h>
static inline int mapping_path_exists(const char *path) { return access(path, F_OK) == 0; }
static inline int mapping_path_usable(const char *path) { return access(path, R_OK | W_OK) == 0; }
