#ifndef CSIMDJSON_LOADER_H
#define CSIMDJSON_LOADER_H
/* The simdjson parser as a plugin: libmapping.so does not link libsimdjson, so it loads on a machine
 * without it. The C++ face over simdjson (CSimdJSON) is built as its own library,
 * libmapping-simdjson.so, which this loader opens the first time the simdjson parser is asked for.
 * Without it (or without libsimdjson) the parser reports itself unavailable. */
#include "../../CSimdJSON/include/csimdjson.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The plugin's functions (see csimdjson.h). */
typedef struct csimdjson_api {
    csimdjson_parser *(*parser_new)(void);
    void (*parser_free)(csimdjson_parser *parser);
    int (*parse)(csimdjson_parser *parser, const char *bytes, size_t len, csimdjson_document *out);
    size_t (*parser_capacity)(const csimdjson_parser *parser);
} csimdjson_api;

/* The plugin, loaded once per process: from $MAPPING_SIMDJSON_PLUGIN when that is set (and only
 * from there), else libmapping-simdjson.so beside the library this loader is part of, else by the
 * system's search path. NULL when it cannot be loaded; csimdjson_load_error() then says why. */
const csimdjson_api *csimdjson_load(void);
const char *csimdjson_load_error(void);

#ifdef __cplusplus
}
#endif
#endif
