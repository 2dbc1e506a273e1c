/* Spec loading: any text must give a context or MAPPING_ESPEC/EMISUSE with a message, never a trap. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mapping_context *ctx = NULL;
    int rc = mapping_context_new((const char *)data, size, &ctx);
    if (rc == MAPPING_OK) {
        FUZZ_ASSERT(ctx != NULL);
        size_t count = 1;
        (void)mapping_entity_count(ctx, "x", &count);
        mapping_context_free(ctx);
    } else {
        FUZZ_ASSERT(ctx == NULL);
        FUZZ_ASSERT(mapping_error_message(NULL)[0] != '\0');
    }
    return 0;
}
