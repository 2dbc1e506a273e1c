/* SQLite's C API for the store (Debian's libsqlite3-dev). SQLITE_TRANSIENT is a cast macro Swift
 * cannot import; this constant stands for it. */
#include <sqlite3.h>

static const sqlite3_destructor_type mapping_sqlite_transient = SQLITE_TRANSIENT;

/* glibc's malloc_trim, which Swift's Glibc module leaves out: after a store's rows are loaded into
 * the graph, the memory they were read into goes back to the system. */
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif
