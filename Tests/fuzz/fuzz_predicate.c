/* Predicates with arguments and sorts: input is predicate NUL arguments NUL sort, run as a fetch and
 * a count against a small graph. A fetch must answer (or fail with a status) and agree with the count. */
#include "fuzz_common.h"

static const char *people =
    "[{\"id\": 1, \"name\": \"Ada\", \"score\": 9.5, \"price\": \"12345678901234567.89\", \"on\": true,"
    "  \"at\": \"1815-12-10T00:00:00Z\", \"info\": {\"age\": 36}, \"company\": {\"id\": \"c1\", \"name\": \"AE\"},"
    "  \"tags\": [\"math\", \"engines\"], \"friend_ids\": [2]},"
    " {\"id\": 2, \"name\": \"Grace\", \"price\": 5, \"info\": {\"age\": 85}, \"company\": {\"id\": \"c1\"}, \"tags\": [\"cobol\"]},"
    " {\"id\": 3, \"name\": \"caf\\u00e9\", \"data\": {\"k\": [1, 2]}, \"friend_ids\": [1, 2]}]";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static mapping_context *ctx;
    if (!ctx) {
        ctx = fuzz_context();
        FUZZ_ASSERT(mapping_context_import(ctx, "person", people, MAPPING_NUL_TERMINATED, NULL) == MAPPING_OK);
    }
    char *predicate = fuzz_part(&data, &size);
    char *arguments = fuzz_part(&data, &size);
    char *sort = fuzz_part(&data, &size);
    mapping_list *list = NULL;
    int rc = mapping_entity_fetch(ctx, "Person", predicate, arguments[0] ? arguments : NULL, sort[0] ? sort : NULL, 0, 0, 0, &list);
    size_t count = 0;
    int counted = mapping_entity_count_where(ctx, "Person", predicate, arguments[0] ? arguments : NULL, &count);
    if (rc == MAPPING_OK && counted == MAPPING_OK) FUZZ_ASSERT(count == mapping_list_count(list));
    mapping_list_free(list);
    free(predicate);
    free(arguments);
    free(sort);
    return 0;
}
