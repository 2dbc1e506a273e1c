/* 01 — Load a spec, import a real API payload (GitHub events), count what the graph holds.
 * Introduces: mapping_context_new, mapping_context_import, mapping_list_count, mapping_entity_count,
 *             mapping_context_free. */
#include "common.h"

int main(int argc, char **argv) {
    const char *dir = data_dir(argc, argv);
    mapping_context *ctx = open_context(dir, "github.spec.json");

    size_t length;
    char *payload = read_file(dir, "github_events.json", &length);
    mapping_list *events = NULL;
    CHECK_MAPPING(ctx, mapping_context_import(ctx, "event", payload, length, &events));
    free(payload);

    printf("imported %zu events\n", mapping_list_count(events));
    const char *entities[] = {"Event", "User", "Repo", "Org"};
    for (size_t i = 0; i < sizeof entities / sizeof *entities; i++) {
        size_t count = 0;
        CHECK_MAPPING(ctx, mapping_entity_count(ctx, entities[i], &count));
        printf("%-5s %zu\n", entities[i], count);
    }

    mapping_list_free(events);
    mapping_context_free(ctx);
    return 0;
}
