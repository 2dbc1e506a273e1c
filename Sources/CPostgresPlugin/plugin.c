/* libmapping-postgres.so: the one library of libmapping that links libpq. It hands the PostgreSQL
 * store the table of libpq functions it calls (mapping_pq.h); only these two symbols are exported. */
#include "../CPostgresLoader/include/mapping_pq.h"

#define EXPORT __attribute__((visibility("default")))

static const cpq_api table = {
    .PQconnectdb = PQconnectdb,
    .PQfinish = PQfinish,
    .PQconninfoParse = PQconninfoParse,
    .PQconninfoFree = PQconninfoFree,
    .PQfreemem = PQfreemem,
    .PQstatus = PQstatus,
    .PQerrorMessage = PQerrorMessage,
    .PQsetNoticeProcessor = PQsetNoticeProcessor,
    .PQexec = PQexec,
    .PQexecParams = PQexecParams,
    .PQresultStatus = PQresultStatus,
    .PQresultErrorField = PQresultErrorField,
    .PQsocket = PQsocket,
    .PQconsumeInput = PQconsumeInput,
    .PQnotifies = PQnotifies,
    .PQntuples = PQntuples,
    .PQnfields = PQnfields,
    .PQftype = PQftype,
    .PQclear = PQclear,
    .PQgetvalue = PQgetvalue,
    .PQgetlength = PQgetlength,
    .PQgetisnull = PQgetisnull,
};

EXPORT int cpq_abi_version(void) { return CPQ_ABI_VERSION; }

EXPORT const cpq_api *cpq_plugin_api(void) { return &table; }
