#define _GNU_SOURCE
#include "csimdjson_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLUGIN "libmapping-simdjson.so"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static csimdjson_api api;
static int loaded;
static char error[512];

/* Opens `path` unless an earlier attempt already recorded why the plugin cannot be used: the first
 * reason is the one worth reporting (a plugin found but lacking libsimdjson, say). */
static void *try_plugin(const char *path) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle && !error[0]) {
        const char *why = dlerror();
        snprintf(error, sizeof error, "cannot load its plugin (%s)", why ? why : path);
    }
    return handle;
}

static void *beside_this_library(void) {
    Dl_info info;
    if (!dladdr((void *)&csimdjson_load, &info) || !info.dli_fname) return NULL;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash) return NULL;
    char path[4096];
    int length = snprintf(path, sizeof path, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname, PLUGIN);
    if (length < 0 || (size_t)length >= sizeof path) return NULL;
    /* Not there is no reason to report: the search path is tried next. */
    if (access(path, F_OK) != 0) return NULL;
    return try_plugin(path);
}

static void load(void) {
    const char *chosen = getenv("MAPPING_SIMDJSON_PLUGIN");
    void *handle = NULL;
    if (chosen && *chosen) {
        handle = try_plugin(chosen);
    } else {
        handle = beside_this_library();
        if (!handle) handle = try_plugin(PLUGIN);
    }
    if (!handle) return;
    int (*abi_version)(void) = (int (*)(void))dlsym(handle, "csimdjson_abi_version");
    if (!abi_version || abi_version() != CSIMDJSON_ABI_VERSION) {
        snprintf(error, sizeof error, "cannot load its plugin (%s is of another libmapping: interface %d, this one needs %d)",
                 PLUGIN, abi_version ? abi_version() : 0, CSIMDJSON_ABI_VERSION);
        dlclose(handle);
        return;
    }
    api.parser_new = (csimdjson_parser *(*)(void))dlsym(handle, "csimdjson_parser_new");
    api.parser_free = (void (*)(csimdjson_parser *))dlsym(handle, "csimdjson_parser_free");
    api.parse = (int (*)(csimdjson_parser *, const char *, size_t, csimdjson_document *))dlsym(handle, "csimdjson_parse");
    api.parser_capacity = (size_t (*)(const csimdjson_parser *))dlsym(handle, "csimdjson_parser_capacity");
    if (!api.parser_new || !api.parser_free || !api.parse || !api.parser_capacity) {
        snprintf(error, sizeof error, "cannot load its plugin (%s lacks its functions)", PLUGIN);
        dlclose(handle);
        return;
    }
    loaded = 1;  /* kept open for the life of the process */
}

const csimdjson_api *csimdjson_load(void) {
    pthread_once(&once, load);
    return loaded ? &api : NULL;
}

const char *csimdjson_load_error(void) {
    pthread_once(&once, load);
    return loaded ? "" : error;
}
