/* 03 — Write objects back out as JSON through a mapping.
 * Introduces: mapping_object_serialize, mapping_list_serialize, MAPPING_SERIALIZE_PRETTY. */
#include "common.h"
#include <string.h>

int main(int argc, char **argv) {
    const char *dir = data_dir(argc, argv);
    mapping_context *ctx = open_context(dir, "github.spec.json");
    size_t length;
    mapping_list *events = import_events(ctx, dir, &length);

    mapping_object user;
    char *json = NULL;
    CHECK_MAPPING(ctx, mapping_entity_find(ctx, "User", "138052", &user));
    CHECK_MAPPING(ctx, mapping_object_serialize(ctx, "user", user, MAPPING_SERIALIZE_PRETTY, &json));
    printf("%s\n", json);
    mapping_free(json);

    CHECK_MAPPING(ctx, mapping_list_serialize(ctx, "event", events, 0, &json));
    printf("all events written back: %zu bytes (input %zu)\n", strlen(json), length);
    mapping_free(json);

    mapping_list_free(events);
    mapping_context_free(ctx);
    return 0;
}
