#include "csimdjson_loader.h"
#include "mapping_plugin.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define PLUGIN "libmapping-simdjson.so"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static csimdjson_api api;
static int loaded;
static char error[512];

static void load(void) {
    void *handle = cplugin_open(PLUGIN, "MAPPING_SIMDJSON_PLUGIN", error, sizeof error);
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
