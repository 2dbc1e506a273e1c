/* Stale stays stale from C: a freed list's pointer never comes back to life when a new list takes
 * its memory, freeing it again is a no-op, and an object handle of a freed context is refused by
 * every later context (70,000 of them: more than a 16-bit tag could tell apart). Not under valgrind
 * (the context churn is long there). */
#include "harness.h"

static const char *spec = "{\"entities\": {\"Item\": {\"attributes\": {\"id\": \"integer\"}}},"
                          " \"mappings\": {\"item\": {\"entity\": \"Item\", \"attributes\": {\"id\": \"id\"}}}}";

static void test_freed_lists_stay_freed(void) {
    mapping_object objects[2] = {1, 2};
    mapping_list *old = NULL, *fresh = NULL;
    EXPECT_OK(NULL, mapping_list_new(objects, 2, &old));
    mapping_list_free(old);
    int same_pointer = 0;
    for (int i = 0; i < 1000; i++) {
        EXPECT_OK(NULL, mapping_list_new(objects, 1, &fresh));
        if (fresh == old) same_pointer++;
        if (i < 999) mapping_list_free(fresh);
    }
    EXPECT(same_pointer == 0);
    EXPECT(mapping_list_count(old) == 0);
    mapping_object object = 0;
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_list_at(old, 0, &object));
    mapping_list_free(old);                 /* a second free is a no-op ... */
    EXPECT(mapping_list_count(fresh) == 1); /* ... and frees nothing else */
    mapping_list_free(fresh);
}

static void test_freed_context_handles_stay_stale(void) {
    mapping_context *first = NULL;
    mapping_object old = 0;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &first));
    EXPECT_OK(first, mapping_object_create(first, "Item", "{\"id\": 1}", &old));
    mapping_context_free(first);
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_entity_count(first, "Item", NULL));
    int accepted = 0, failed = 0;
    for (int i = 0; i < 70000; i++) {
        mapping_context *ctx = NULL;
        mapping_object object = 0;
        int64_t id = 0;
        if (mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx) != MAPPING_OK) { failed++; continue; }
        if (mapping_object_create(ctx, "Item", "{\"id\": 2}", &object) != MAPPING_OK) failed++;
        int rc = mapping_object_get_int64(ctx, old, "id", &id);
        if (rc != MAPPING_ESTALE) accepted++;
        mapping_context_free(ctx);
    }
    EXPECT(failed == 0);
    EXPECT(accepted == 0);
}

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    test_freed_lists_stay_freed();
    test_freed_context_handles_stay_stale();
    return harness_finish("c handles");
}
