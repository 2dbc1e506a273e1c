/* 08 — An offline cache: map the events into an SQLite store, free the context, reopen the file in a
 *      new context, query it, and observe a second import.
 * Introduces: mapping_context_open, MAPPING_OPEN_CREATE, mapping_entity_count_where, observing a store. */
#include "common.h"

#include <unistd.h>

static void report(mapping_context *ctx, const mapping_changes *changes, void *payload) {
    size_t inserted = 0, updated = 0;
    (void)ctx;
    (void)payload;
    mapping_changes_count(changes, MAPPING_CHANGE_INSERTED, &inserted);
    mapping_changes_count(changes, MAPPING_CHANGE_UPDATED, &updated);
    printf("observed a commit: %zu inserted, %zu updated\n", inserted, updated);
}

int main(int argc, char **argv) {
    const char *dir = data_dir(argc, argv);
    const char *path = "/tmp/github-events-c.db";
    char wal[64];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(path);
    unlink(wal);
    size_t length;
    char *spec = read_file(dir, "github.spec.json", &length);

    /* First run: the file is created and every commit is written to it. */
    mapping_context *ctx = NULL;
    CHECK_MAPPING(NULL, mapping_context_open(spec, length, path, MAPPING_OPEN_CREATE, &ctx));
    mapping_list_free(import_events(ctx, dir, NULL));
    mapping_context_free(ctx);

    /* Next run: a new context reads the graph back from the file. */
    CHECK_MAPPING(NULL, mapping_context_open(spec, length, path, 0, &ctx));
    size_t events = 0, pushes = 0;
    CHECK_MAPPING(ctx, mapping_entity_count(ctx, "Event", &events));
    CHECK_MAPPING(ctx, mapping_entity_count_where(ctx, "Event", "type == %@", "[\"PushEvent\"]", &pushes));
    printf("reopened %s: %zu events, %zu of them pushes\n", path, events, pushes);

    /* The same payload again changes nothing: no commit, nothing written, no observer call. Then one
     * change is observed and written. */
    uint64_t token = 0;
    CHECK_MAPPING(ctx, mapping_context_observe(ctx, report, NULL, &token));
    mapping_list_free(import_events(ctx, dir, NULL));
    mapping_object user;
    CHECK_MAPPING(ctx, mapping_entity_find(ctx, "User", "138052", &user));
    CHECK_MAPPING(ctx, mapping_object_set(ctx, user, "login", "\"jathanism-renamed\""));
    mapping_context_free(ctx);
    free(spec);
    printf("query it with: sqlite3 %s .schema\n", path);
    return 0;
}
