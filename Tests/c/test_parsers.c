/* The parser backends from C: availability, choosing one per context and per import (options
 * version 2, and a version-1 struct still read as such), the same graph and output from both, and
 * malformed JSON reported with the same line, column and message by both. */
#include "harness.h"

static char *serialize_all(mapping_context *ctx) {
    mapping_list *people = NULL;
    char *text = NULL;
    EXPECT_OK(ctx, mapping_entity_all(ctx, "Person", &people));
    EXPECT_OK(ctx, mapping_list_serialize(ctx, "person", people, 0, &text));
    mapping_list_free(people);
    return text;
}

/* Imports the fixture with `parser` chosen for the context; returns the serialized people. */
static char *import_with_parser(const char *spec, const char *payload, int parser) {
    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    EXPECT_OK(ctx, mapping_context_set_parser(ctx, parser));
    EXPECT_OK(ctx, mapping_context_import(ctx, "person", payload, MAPPING_NUL_TERMINATED, NULL));
    char *text = serialize_all(ctx);
    mapping_context_free(ctx);
    return text;
}

/* The error record of a failed import of `text` with `parser`, copied out. */
static mapping_error parse_failure(mapping_context *ctx, const char *text, int parser, char *message, size_t size) {
    mapping_import_options options = MAPPING_IMPORT_OPTIONS_INIT;
    options.parser = parser;
    const char *names[] = {"person"};
    EXPECT_RC(ctx, MAPPING_EPARSE, mapping_context_import_with(ctx, names, 1, text, MAPPING_NUL_TERMINATED, &options, NULL));
    mapping_error copy = *mapping_error_last(ctx);
    snprintf(message, size, "%s", copy.message ? copy.message : "");
    copy.message = message;
    return copy;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "Tests/fixtures";
    char *spec = harness_read(dir, "people.spec.json");
    char *payload = harness_read(dir, "people.json");

    EXPECT(mapping_parser_is_available(MAPPING_PARSER_JANSSON) == 1);
    EXPECT(mapping_parser_is_available(MAPPING_PARSER_DEFAULT) == 0 && mapping_parser_is_available(99) == 0);
    int simd = mapping_parser_is_available(MAPPING_PARSER_SIMDJSON);

    mapping_context *ctx = NULL;
    EXPECT_OK(NULL, mapping_context_new(spec, MAPPING_NUL_TERMINATED, &ctx));
    EXPECT_RC(ctx, MAPPING_ERANGE, mapping_context_set_parser(ctx, MAPPING_PARSER_DEFAULT));
    EXPECT_RC(ctx, MAPPING_ERANGE, mapping_context_set_parser(ctx, 42));
    EXPECT_RC(NULL, MAPPING_EMISUSE, mapping_context_set_parser(NULL, MAPPING_PARSER_JANSSON));
    EXPECT_OK(ctx, mapping_context_set_parser(ctx, MAPPING_PARSER_JANSSON));

    if (!simd) {
        /* A build without simdjson says so, by code and in words, and keeps working on jansson. */
        EXPECT_RC(ctx, MAPPING_EUNAVAILABLE, mapping_context_set_parser(ctx, MAPPING_PARSER_SIMDJSON));
        EXPECT(strstr(mapping_error_message(ctx), "simdjson") != NULL);
        EXPECT_STR(mapping_error_name(MAPPING_EUNAVAILABLE), "MAPPING_EUNAVAILABLE");
        mapping_context_free(ctx);
        free(spec);
        free(payload);
        return harness_finish("c parsers (built without simdjson)");
    }

    /* The same graph, serialized byte for byte alike. */
    char *by_jansson = import_with_parser(spec, payload, MAPPING_PARSER_JANSSON);
    char *by_simdjson = import_with_parser(spec, payload, MAPPING_PARSER_SIMDJSON);
    EXPECT(by_jansson != NULL && by_simdjson != NULL && strlen(by_jansson) > 100);
    EXPECT_STR(by_simdjson, by_jansson);
    mapping_free(by_jansson);
    mapping_free(by_simdjson);

    /* Per import, through options version 2: simdjson for this import only. */
    mapping_import_options options = MAPPING_IMPORT_OPTIONS_INIT;
    options.parser = MAPPING_PARSER_SIMDJSON;
    const char *names[] = {"person"};
    mapping_list *list = NULL;
    EXPECT_OK(ctx, mapping_context_import_with(ctx, names, 1, payload, MAPPING_NUL_TERMINATED, &options, &list));
    EXPECT(mapping_list_count(list) == 3);
    size_t count = 0;
    mapping_list_free(list);
    mapping_object ada = MAPPING_NO_OBJECT;
    EXPECT_OK(ctx, mapping_entity_find(ctx, "Person", "1", &ada));
    const char *name = NULL;
    EXPECT_OK(ctx, mapping_object_get_string(ctx, ada, "name", &name, NULL));
    EXPECT_STR(name, "Ada Lovelace");
    options.parser = 7;
    EXPECT_RC(ctx, MAPPING_ERANGE, mapping_context_import_with(ctx, names, 1, payload, MAPPING_NUL_TERMINATED, &options, NULL));

    /* A version-1 caller's struct ends before `parser`: whatever follows it is not read. */
    options.version = 1;
    options.parser = 12345;
    EXPECT_OK(ctx, mapping_context_import_with(ctx, names, 1, payload, MAPPING_NUL_TERMINATED, &options, NULL));

    /* Malformed text: the same code, line, column, position and message from both parsers. */
    const char *bad[] = {"{\"data\": {\"people\": [\n  {\"id\": 1,, \"name\": \"x\"}]}}", "[1, 2", "",
                         "{\"data\": {\"people\": [{\"id\": 18446744073709551615}]}}", "[\"\\uZZZZ\"]"};
    for (size_t index = 0; index < sizeof bad / sizeof bad[0]; index++) {
        char first[512], second[512];
        mapping_error jansson = parse_failure(ctx, bad[index], MAPPING_PARSER_JANSSON, first, sizeof first);
        mapping_error simdjson = parse_failure(ctx, bad[index], MAPPING_PARSER_SIMDJSON, second, sizeof second);
        EXPECT(jansson.line == simdjson.line && jansson.column == simdjson.column && jansson.position == simdjson.position);
        EXPECT_STR(second, first);
    }
    char message[512];
    mapping_error located = parse_failure(ctx, bad[0], MAPPING_PARSER_SIMDJSON, message, sizeof message);
    EXPECT(located.line == 2 && located.column > 0);
    EXPECT(strstr(message, "line 2") != NULL);

    /* Chunked and per-context choice together; the graph is unchanged by the failures above. */
    EXPECT_OK(ctx, mapping_context_set_parser(ctx, MAPPING_PARSER_SIMDJSON));
    EXPECT_OK(ctx, mapping_context_import_chunked(ctx, "person", "[{\"id\": 40, \"name\": \"Chunk\"}, {\"id\": 41}]",
                                          MAPPING_NUL_TERMINATED, MAPPING_CHUNKS_ARRAY, 1, NULL, &count));
    EXPECT(count == 2);
    size_t people = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Person", &people));
    EXPECT(people == 4);  /* Ada and Grace, then the two chunked people */

    mapping_context_free(ctx);
    free(spec);
    free(payload);
    return harness_finish("c parsers");
}
