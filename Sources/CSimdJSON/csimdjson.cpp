// The C face of simdjson's DOM parser. Built with SIMDJSON_THREADS_ENABLED=1 (it changes
// dom::parser's layout to match the library's build) and hidden visibility, so no simdjson symbol
// leaks from libmapping.so. No exception escapes: every entry point catches.
#include "csimdjson.h"

#include <cstring>
#include <new>
#include <simdjson.h>

static_assert(simdjson::SIMDJSON_VERSION_MAJOR == 3, "TapeReader.swift reads simdjson 3's tape format");

struct csimdjson_parser {
    simdjson::dom::parser parser;
    simdjson::error_code last_error = simdjson::SUCCESS;
};

extern "C" csimdjson_parser *csimdjson_parser_new(void) {
    try {
        return new csimdjson_parser();
    } catch (...) {
        return nullptr;
    }
}

extern "C" void csimdjson_parser_free(csimdjson_parser *parser) { delete parser; }

// jansson refuses integers beyond int64 ("too big integer"); simdjson keeps those up to 2^64 as
// unsigned. One pass over the tape finds them, so both backends accept exactly the same numbers.
static bool has_unsigned_beyond_int64(const uint64_t *tape, size_t length) {
    for (size_t index = 1; index < length; index++) {
        const uint64_t tag = tape[index] >> 56;
        if (tag == 'u') return true;
        if (tag == 'l' || tag == 'd') index++;  // the next word is the number itself
    }
    return false;
}

// jansson refuses "\u0000" in an object key and keeps it in a string value; simdjson takes both.
// A document that spells it anywhere is left to jansson (rare, and then both backends agree).
// Backslashes are rare in JSON, and memchr finds them several times faster than memmem scans for
// the whole escape; an escaped backslash is skipped with its partner, so "\\\\u0000" (a backslash,
// then the text u0000) is not taken for the escape.
static bool has_nul_escape(const char *bytes, size_t length) {
    if (bytes == nullptr) return false;
    const char *end = bytes + length;
    for (const char *at = bytes; at < end;) {
        at = static_cast<const char *>(memchr(at, '\\', static_cast<size_t>(end - at)));
        if (at == nullptr || end - at < 6) return false;  // too short for the escape (and for at + 2)
        if (memcmp(at, "\\u0000", 6) == 0) return true;
        at += 2;
    }
    return false;
}

extern "C" int csimdjson_parse(csimdjson_parser *parser, const char *bytes, size_t len, csimdjson_document *out) {
    if (parser == nullptr || out == nullptr || (bytes == nullptr && len > 0)) return CSIMDJSON_ERROR;
    try {
        simdjson::dom::element root;
        parser->last_error = parser->parser.parse(bytes == nullptr ? "" : bytes, len, true).get(root);
        if (parser->last_error != simdjson::SUCCESS) return CSIMDJSON_ERROR;
        const simdjson::dom::document &document = parser->parser.doc;
        // The opening root word holds the tape's length: the index just past the closing root word.
        const size_t length = size_t(document.tape[0] & simdjson::internal::JSON_VALUE_MASK);
        out->tape = document.tape.get();
        out->tape_length = length;
        out->strings = document.string_buf.get();
        const bool jansson_decides = has_unsigned_beyond_int64(out->tape, length) || has_nul_escape(bytes, len);
        return jansson_decides ? CSIMDJSON_DIFFERENT : CSIMDJSON_OK;
    } catch (...) {
        parser->last_error = simdjson::MEMALLOC;
        return CSIMDJSON_ERROR;
    }
}

extern "C" size_t csimdjson_parser_capacity(const csimdjson_parser *parser) {
    return parser == nullptr ? 0 : parser->parser.capacity();
}

extern "C" const char *csimdjson_last_error(const csimdjson_parser *parser) {
    if (parser == nullptr || parser->last_error == simdjson::SUCCESS) return "";
    return simdjson::error_message(parser->last_error);
}

extern "C" int csimdjson_abi_version(void) { return CSIMDJSON_ABI_VERSION; }
