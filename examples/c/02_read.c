/* 02 — Read attributes and follow relationships both ways.
 * Introduces: mapping_list_at, mapping_object_get_string, mapping_object_get_date, mapping_object_related,
 *             mapping_entity_find, mapping_object_related_list, mapping_object_get_json, mapping_free. */
#include "common.h"

int main(int argc, char **argv) {
    const char *dir = data_dir(argc, argv);
    mapping_context *ctx = open_context(dir, "github.spec.json");
    mapping_list *events = import_events(ctx, dir, NULL);

    /* Borrowed strings last until this thread's next call on the context: use each one first. */
    for (size_t i = 0; i < 3 && i < mapping_list_count(events); i++) {
        mapping_object event, actor, repo;
        const char *text;
        double created;
        CHECK_MAPPING(ctx, mapping_list_at(events, i, &event));
        CHECK_MAPPING(ctx, mapping_object_get_date(ctx, event, "createdAt", &created));
        CHECK_MAPPING(ctx, mapping_object_get_string(ctx, event, "type", &text, NULL));
        printf("%.0f %-18s", created, text);
        CHECK_MAPPING(ctx, mapping_object_related(ctx, event, "actor", &actor));
        CHECK_MAPPING(ctx, mapping_object_get_string(ctx, actor, "login", &text, NULL));
        printf(" by %-10s", text);
        CHECK_MAPPING(ctx, mapping_object_related(ctx, event, "repo", &repo));
        CHECK_MAPPING(ctx, mapping_object_get_string(ctx, repo, "name", &text, NULL));
        printf(" on %s\n", text);
    }

    /* By identity: the repository 6357414, and every event of it through the inverse. */
    mapping_object repo;
    CHECK_MAPPING(ctx, mapping_entity_find(ctx, "Repo", "6357414", &repo));
    mapping_list *repo_events = NULL;
    CHECK_MAPPING(ctx, mapping_object_related_list(ctx, repo, "events", &repo_events));
    printf("repo 6357414 has %zu event(s)\n", mapping_list_count(repo_events));

    /* A json attribute comes back as JSON text, which the caller frees. */
    mapping_object first;
    char *json = NULL;
    CHECK_MAPPING(ctx, mapping_list_at(repo_events, 0, &first));
    CHECK_MAPPING(ctx, mapping_object_get_json(ctx, first, "payload", &json));
    printf("its payload starts %.60s...\n", json);
    mapping_free(json);

    mapping_list_free(repo_events);
    mapping_list_free(events);
    mapping_context_free(ctx);
    return 0;
}
