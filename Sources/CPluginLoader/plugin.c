#define _GNU_SOURCE
#include "mapping_plugin.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Opens `path` unless an earlier attempt already recorded why the plugin cannot be used: the first
 * reason is the one worth reporting (a plugin found but lacking the library it links, say). */
static void *try_open(const char *path, char *error, size_t size) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle && size > 0 && !error[0]) {
        const char *why = dlerror();
        snprintf(error, size, "cannot load its plugin (%s)", why ? why : path);
    }
    return handle;
}

/* `file` in `folder` (relative to the directory of the library this code is part of), if it is
 * there: not there is no reason to report, the next place is tried. */
static void *near_this_library(const char *folder, const char *file, char *error, size_t size) {
    Dl_info info;
    if (!dladdr((void *)&cplugin_open, &info) || !info.dli_fname) return NULL;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash) return NULL;
    char path[4096];
    int length = snprintf(path, sizeof path, "%.*s/%s%s", (int)(slash - info.dli_fname), info.dli_fname, folder, file);
    if (length < 0 || (size_t)length >= sizeof path) return NULL;
    if (access(path, F_OK) != 0) return NULL;
    return try_open(path, error, size);
}

void *cplugin_open(const char *file, const char *variable, char *error, size_t size) {
    if (size > 0) error[0] = 0;
    const char *chosen = getenv(variable);
    if (chosen && *chosen) return try_open(chosen, error, size);
    /* Beside the library (libmapping.so, or a program linking the engine); then ../lib from it (a
     * program installed in bin/ with the plugins in lib/); then the system's search path. */
    void *handle = near_this_library("", file, error, size);
    if (!handle) handle = near_this_library("../lib/", file, error, size);
    return handle ? handle : try_open(file, error, size);
}
