#include "mapping_pq.h"
#include "mapping_plugin.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define PLUGIN "libmapping-postgres.so"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const cpq_api *api;
static char error[512];

static void load(void) {
    void *handle = cplugin_open(PLUGIN, "MAPPING_POSTGRES_PLUGIN", error, sizeof error);
    if (!handle) return;
    int (*abi_version)(void) = (int (*)(void))dlsym(handle, "cpq_abi_version");
    const cpq_api *(*table)(void) = (const cpq_api *(*)(void))dlsym(handle, "cpq_plugin_api");
    if (!abi_version || !table || abi_version() != CPQ_ABI_VERSION) {
        snprintf(error, sizeof error, "cannot load its plugin (%s is of another libmapping: interface %d, this one needs %d)",
                 PLUGIN, abi_version ? abi_version() : 0, CPQ_ABI_VERSION);
        dlclose(handle);
        return;
    }
    api = table();  /* the plugin stays open for the life of the process */
    if (!api) snprintf(error, sizeof error, "cannot load its plugin (%s gave no function table)", PLUGIN);
}

const cpq_api *cpq_load(void) {
    pthread_once(&once, load);
    return api;
}

const char *cpq_load_error(void) {
    pthread_once(&once, load);
    return api ? "" : error;
}
