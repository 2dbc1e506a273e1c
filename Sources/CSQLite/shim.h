/* SQLite's C API for the store (Debian's libsqlite3-dev). SQLITE_TRANSIENT is a cast macro Swift
 * cannot import; this constant stands for it. */
#include <sqlite3.h>

static const sqlite3_destructor_type mapping_sqlite_transient = SQLITE_TRANSIENT;
