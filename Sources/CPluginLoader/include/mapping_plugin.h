#ifndef MAPPING_PLUGIN_H
#define MAPPING_PLUGIN_H
/* Finding and opening one of libmapping's plugins (the simdjson parser, the PostgreSQL store):
 * libraries of our own that link what libmapping.so does not, so that it loads on a machine without
 * them. The loaders of each plugin (CSimdJSONLoader, CPostgresLoader) use this. Names here and in
 * the loaders do not start with `mapping_`: libmapping.so exports exactly those (the C API). */
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the plugin `file` (RTLD_NOW | RTLD_LOCAL): from the path in the environment variable
 * `variable` when that is set (and only from there), else from beside the library this code is
 * part of, else from ../lib relative to it, else by the system's search path. NULL when it cannot be opened; `error` (of `size`
 * bytes) then says why, naming what is missing. */
void *cplugin_open(const char *file, const char *variable, char *error, size_t size);

#ifdef __cplusplus
}
#endif
#endif
