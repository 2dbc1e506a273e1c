#ifndef MAPPING_PQ_H
#define MAPPING_PQ_H
/* libpq, PostgreSQL's C client library, as a plugin: libmapping.so does not link it (it would bring
 * OpenSSL, Kerberos, LDAP and 20 more libraries every user must have). The plugin,
 * libmapping-postgres.so (Sources/CPostgresPlugin), links libpq and hands over a table of the
 * functions the PostgreSQL store calls; this loader opens it the first time a postgresql:// store
 * is opened. Only libpq's header is needed to build (Debian's libpq-dev). */
#include <postgresql/libpq-fe.h>  /* Debian's place for it (Package.swift checks for it there) */
#include <poll.h>

/* The table's function pointers are marked _Nonnull (Swift then calls them without unwrapping); the
 * pointers they take and return keep libpq's meaning, so clang's call for completeness is off here. */
#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#else
#define _Nonnull
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the table below; a plugin of another version is refused. */
#define CPQ_ABI_VERSION 1

/* The libpq functions the store calls, under their own names. */
typedef struct cpq_api {
    PGconn *(* _Nonnull PQconnectdb)(const char *conninfo);
    void (* _Nonnull PQfinish)(PGconn *conn);
    PQconninfoOption *(* _Nonnull PQconninfoParse)(const char *conninfo, char **errmsg);
    void (* _Nonnull PQconninfoFree)(PQconninfoOption *options);
    void (* _Nonnull PQfreemem)(void *ptr);
    ConnStatusType (* _Nonnull PQstatus)(const PGconn *conn);
    char *(* _Nonnull PQerrorMessage)(const PGconn *conn);
    PQnoticeProcessor (* _Nonnull PQsetNoticeProcessor)(PGconn *conn, PQnoticeProcessor proc, void *arg);
    PGresult *(* _Nonnull PQexec)(PGconn *conn, const char *query);
    PGresult *(* _Nonnull PQexecParams)(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                                        const char *const *paramValues, const int *paramLengths,
                                        const int *paramFormats, int resultFormat);
    ExecStatusType (* _Nonnull PQresultStatus)(const PGresult *res);
    char *(* _Nonnull PQresultErrorField)(const PGresult *res, int fieldcode);
    int (* _Nonnull PQsocket)(const PGconn *conn);
    int (* _Nonnull PQconsumeInput)(PGconn *conn);
    PGnotify *(* _Nonnull PQnotifies)(PGconn *conn);
    int (* _Nonnull PQntuples)(const PGresult *res);
    int (* _Nonnull PQnfields)(const PGresult *res);
    Oid (* _Nonnull PQftype)(const PGresult *res, int field_num);
    void (* _Nonnull PQclear)(PGresult *res);
    char *(* _Nonnull PQgetvalue)(const PGresult *res, int tup_num, int field_num);
    int (* _Nonnull PQgetlength)(const PGresult *res, int tup_num, int field_num);
    int (* _Nonnull PQgetisnull)(const PGresult *res, int tup_num, int field_num);
} cpq_api;

/* The plugin, loaded once per process: from $MAPPING_POSTGRES_PLUGIN when that is set (and only
 * from there), else libmapping-postgres.so beside the library this loader is part of, else by the
 * system's search path. NULL when it cannot be loaded; cpq_load_error() then says why. */
const cpq_api *cpq_load(void);
const char *cpq_load_error(void);

#ifdef __cplusplus
}
#endif
#ifdef __clang__
#pragma clang diagnostic pop
#else
#undef _Nonnull
#endif
#endif
