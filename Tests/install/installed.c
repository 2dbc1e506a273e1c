/* Built by Tests/install/test_install.sh against an installed libmapping (`pkg-config --cflags --libs
 * mapping`, nothing from the checkout): a context from a small spec, an import, values read back. */
#include <mapping.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *SPEC =
    "{\"entities\": {\"User\": {\"attributes\": {\"id\": \"integer\", \"login\": \"string\"},"
    " \"identification\": \"id\"}},"
    " \"mappings\": {\"user\": {\"entity\": \"User\", \"attributes\": {\"id\": \"id\", \"login\": \"login\"}}}}";

/* The same user twice: one object per identity. */
static const char *PAYLOAD =
    "[{\"id\": 1, \"login\": \"ada\"}, {\"id\": 2, \"login\": \"grace\"}, {\"id\": 1, \"login\": \"ada\"}]";

static void check(mapping_context *ctx, int rc, const char *what) {
    if (rc != MAPPING_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, mapping_error_name(rc), mapping_error_message(ctx));
        exit(1);
    }
}

int main(void) {
    if (mapping_version_number() != MAPPING_VERSION_NUMBER) {
        fprintf(stderr, "header %s, library %s\n", MAPPING_VERSION_STRING, mapping_version());
        return 1;
    }
    mapping_context *ctx = NULL;
    check(NULL, mapping_context_new(SPEC, MAPPING_NUL_TERMINATED, &ctx), "mapping_context_new");
    mapping_list *users = NULL;
    check(ctx, mapping_context_import(ctx, "user", PAYLOAD, strlen(PAYLOAD), &users), "mapping_context_import");
    size_t count = 0;
    check(ctx, mapping_entity_count(ctx, "User", &count), "mapping_entity_count");
    printf("libmapping %s: %zu representations, %zu users\n", mapping_version(), mapping_list_count(users), count);
    for (size_t i = 0; i < mapping_list_count(users); i++) {
        mapping_object user;
        int64_t id = 0;
        const char *login = NULL;
        check(ctx, mapping_list_at(users, i, &user), "mapping_list_at");
        check(ctx, mapping_object_get_int64(ctx, user, "id", &id), "mapping_object_get_int64");
        check(ctx, mapping_object_get_string(ctx, user, "login", &login, NULL), "mapping_object_get_string");
        printf("%lld %s\n", (long long)id, login);
    }
    mapping_list_free(users);
    mapping_context_free(ctx);
    return 0;
}
