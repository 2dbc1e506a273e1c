/* 07 — Observe commits and watch a fetch.
 * Introduces: mapping_context_observe, mapping_changes_count, mapping_changes_entity,
 *             mapping_changes_changed, mapping_context_watch, mapping_fetch_change_count,
 *             mapping_fetch_change_position, mapping_context_unobserve. */
#include "common.h"

/* Called after every commit that changed something, once the call has released the context. */
static void report(mapping_context *ctx, const mapping_changes *changes, void *payload) {
    size_t inserted = 0, updated = 0, deleted = 0;
    const char *changed = NULL, *entity = NULL;
    (void)ctx;
    (void)payload;
    mapping_changes_count(changes, MAPPING_CHANGE_INSERTED, &inserted);
    mapping_changes_count(changes, MAPPING_CHANGE_UPDATED, &updated);
    mapping_changes_count(changes, MAPPING_CHANGE_DELETED, &deleted);
    printf("commit: %zu inserted, %zu updated, %zu deleted\n", inserted, updated, deleted);
    for (size_t i = 0; i < updated && i < 3; i++) {
        mapping_changes_entity(changes, MAPPING_CHANGE_UPDATED, i, &entity);
        mapping_changes_changed(changes, i, &changed);
        printf("  updated %s: %s\n", entity, changed);
    }
}

/* Called when the watched fetch's results change. */
static void moved(mapping_context *ctx, const mapping_fetch_change *change, void *payload) {
    size_t moves = 0, from = 0, to = 0;
    (void)ctx;
    (void)payload;
    mapping_fetch_change_count(change, MAPPING_POSITION_MOVED, &moves);
    for (size_t i = 0; i < moves; i++) {
        mapping_fetch_change_position(change, MAPPING_POSITION_MOVED, i, &to, &from);
        printf("  watched users: one moved from %zu to %zu\n", from, to);
    }
}

int main(int argc, char **argv) {
    const char *dir = data_dir(argc, argv);
    mapping_context *ctx = open_context(dir, "github.spec.json");
    uint64_t observer = 0, watch = 0;
    CHECK_MAPPING(ctx, mapping_context_observe(ctx, report, NULL, &observer));

    mapping_list_free(import_events(ctx, dir, NULL));     /* everything is new */
    mapping_list_free(import_events(ctx, dir, NULL));     /* the same data again: no commit to report */

    CHECK_MAPPING(ctx, mapping_context_watch(ctx, "User", NULL, NULL, "login", 0, moved, NULL, &watch));
    mapping_object user;
    CHECK_MAPPING(ctx, mapping_entity_find(ctx, "User", "138052", &user));
    CHECK_MAPPING(ctx, mapping_object_set(ctx, user, "login", "\"zz-jathanism\""));  /* sorts last now */

    CHECK_MAPPING(ctx, mapping_context_unobserve(ctx, watch));
    CHECK_MAPPING(ctx, mapping_context_unobserve(ctx, observer));
    mapping_context_free(ctx);
    return 0;
}
