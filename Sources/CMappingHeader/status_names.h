/* The name of each status code, spelled by the preprocessor from the header's constant itself: the
 * codes and their names are written once, in mapping.h's mapping_status. A code missing here reads
 * as "MAPPING_E?" (the module is a system one, so -Wswitch stays quiet): the tests compare every
 * code and name of the header with the library's (StatusCodeTests, test_status_codes.py). */
#include "../../include/mapping.h"

#define MAPPING_STATUS_NAME(constant) case constant: return #constant;

static inline const char *mapping_status_name(mapping_status status) {
    switch (status) {
    MAPPING_STATUS_NAME(MAPPING_OK)
    MAPPING_STATUS_NAME(MAPPING_ERROR)
    MAPPING_STATUS_NAME(MAPPING_EMISUSE)
    MAPPING_STATUS_NAME(MAPPING_ESPEC)
    MAPPING_STATUS_NAME(MAPPING_EPARSE)
    MAPPING_STATUS_NAME(MAPPING_ETYPE)
    MAPPING_STATUS_NAME(MAPPING_ENAME)
    MAPPING_STATUS_NAME(MAPPING_ENOTFOUND)
    MAPPING_STATUS_NAME(MAPPING_ESTALE)
    MAPPING_STATUS_NAME(MAPPING_ENULL)
    MAPPING_STATUS_NAME(MAPPING_EDEPTH)
    MAPPING_STATUS_NAME(MAPPING_ERANGE)
    MAPPING_STATUS_NAME(MAPPING_EMAPPING)
    MAPPING_STATUS_NAME(MAPPING_EDENIED)
    MAPPING_STATUS_NAME(MAPPING_EPREDICATE)
    MAPPING_STATUS_NAME(MAPPING_ECONSTRAINT)
    MAPPING_STATUS_NAME(MAPPING_ERESPONSE)
    MAPPING_STATUS_NAME(MAPPING_EUNAVAILABLE)
    MAPPING_STATUS_NAME(MAPPING_EBUSY)
    MAPPING_STATUS_NAME(MAPPING_ESTORE)
    MAPPING_STATUS_NAME(MAPPING_ECONFLICT)
    MAPPING_STATUS_NAME(MAPPING_ENOMEM)
    }
    return "MAPPING_E?";
}

#undef MAPPING_STATUS_NAME
