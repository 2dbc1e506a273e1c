/* Spec loading: any text must give a context or MAPPING_ESPEC/EMISUSE with a message, never a trap.
 * Each input makes (and frees) its own context: the input is the spec. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mapping_context *ctx = NULL;
    int rc = mapping_context_new((const char *)data, size, &ctx);
    FUZZ_ASSERT(fuzz_known(rc));
    if (rc == MAPPING_OK) {
        FUZZ_ASSERT(ctx != NULL);
        size_t count = 1;
        FUZZ_ASSERT(fuzz_known(mapping_entity_count(ctx, "x", &count)));
        mapping_context_free(ctx);
    } else {
        FUZZ_ASSERT(ctx == NULL);
        FUZZ_ASSERT(mapping_error_last(NULL)->code == rc);
        FUZZ_ASSERT(mapping_error_message(NULL)[0] != '\0');
    }
    return 0;
}
