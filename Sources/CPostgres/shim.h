/* libpq, PostgreSQL's C client library (Debian's libpq-dev), for the PostgreSQL store. Its header
 * lives in /usr/include/postgresql, which pkg-config's libpq entry adds to the search path. */
#include <libpq-fe.h>
#include <poll.h>
