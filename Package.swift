// swift-tools-version:6.0
// libmapping: JSON from web APIs mapped into a live, identity-mapped object graph.
//
// Targets, from the bottom up; each imports only targets above it in this list (Tests/layers
// checks it, see docs/layout.md):
//   MappingLock     the locks (pthread mutexes ThreadSanitizer understands)
//   MappingArena    the graph's string bytes in chunks that never move, and the buffer JSON is written into
//                   (the only raw memory Swift allocates)
//   CPluginLoader   finds and opens libmapping's plugins (dlopen)
//   CMappingHeader  include/mapping.h as a module: the status codes' one source, and the C ABI's types
//   MappingCore     safe Swift only: spec model, values, graph, importer, serializer, queries, HTTP pieces
//   CJansson        system library wrapping jansson (shim.h turns its macros into functions)
//   CJanssonArena   C: jansson parses into an arena, freed whole (no walk of the tree, no free per node)
//   CSimdJSONLoader the simdjson parser's functions, from its plugin libmapping-simdjson.so
//   MappingJSON     the only target that touches json_t or simdjson's tape: parsing, the readers the importer walks
//   MappingSQL      what both database stores share: the tables a model becomes, values to and from SQL
//   CSQLite         system library wrapping SQLite's C API
//   MappingSQLite   the SQLite store (the only target that touches sqlite3)
//   CPostgresLoader the libpq functions the store calls, from the plugin libmapping-postgres.so
//   CPostgresPlugin that plugin: the one library that links libpq (built as its own .so)
//   MappingPostgres the PostgreSQL store (the only target that calls libpq)
//   MappingEngine   the context: owns MappingContext, parses payloads, opens stores and fills the graph
//   Mapping         the C ABI (@_cdecl), built as the dynamic library product libmapping.so
import PackageDescription
import Foundation

// SwiftPM refuses a package depended on by version ("contains unsafe build flags") if a target of
// a product the dependent uses has unsafeFlags. Ours (-cross-module-optimization, and CSimdJSON's
// -fvisibility=hidden) make the code faster or keep simdjson's symbols inside its plugin; neither
// is needed to build or to be correct. So the repository's own builds ask for them with
// MAPPING_LOCAL_FLAGS=1, which the Makefile exports (`make bench-check` guards the instruction
// counts of that build), and a package depending on this one builds the same sources without
// them; it gets the same code by building with `-Xswiftc -cross-module-optimization`
// (docs/swift.md).
let localFlags = ProcessInfo.processInfo.environment["MAPPING_LOCAL_FLAGS"] == "1"

// The simdjson backend (issue 5's fast parse path) is built when simdjson is there: the environment
// variable MAPPING_SIMDJSON=1 or =0 decides; unset, the manifest looks for Debian's simdjson.h.
// Without it the library is jansson-only and asking for simdjson is MAPPING_EUNAVAILABLE.
let simdjsonWanted: Bool = {
    switch ProcessInfo.processInfo.environment["MAPPING_SIMDJSON"] {
    case "1": return true
    case "0": return false
    default: return FileManager.default.fileExists(atPath: "/usr/include/simdjson.h")
    }
}()

// libmapping.so itself never links libsimdjson: MappingJSON loads the parser at run time through
// CSimdJSONLoader (dlopen of libmapping-simdjson.so), so the library loads on a machine without it.
var simdjsonDependency: [Target.Dependency] { simdjsonWanted ? ["CSimdJSONLoader"] : [] }
var simdjsonDefine: [SwiftSetting] { simdjsonWanted ? [.define("MAPPING_SIMDJSON")] : [] }
var simdjsonProducts: [Product] {
    guard simdjsonWanted else { return [] }
    return [
        // The plugin the loader opens, built beside libmapping.so.
        .library(name: "mapping-simdjson", type: .dynamic, targets: ["CSimdJSON"]),
        // The C face of simdjson, for bench/swift's hand-written baseline (it walks the same tape).
        .library(name: "CSimdJSON", targets: ["CSimdJSON"]),
    ]
}
var simdjsonTargets: [Target] {
    guard simdjsonWanted else { return [] }
    return [
        // C++ over simdjson's DOM parser with a C header of our own. SIMDJSON_THREADS_ENABLED must
        // match the library's build (it changes dom::parser's layout); hidden visibility keeps every
        // simdjson symbol inside the plugin (only the csimdjson_* functions are exported).
        // C++17 comes from the package's cxxLanguageStandard; hidden visibility is a local flag
        // (the Makefile compiles the installed plugin itself, with it).
        .target(name: "CSimdJSON",
                cxxSettings: [.define("SIMDJSON_THREADS_ENABLED", to: "1")] + (localFlags ? [.unsafeFlags(["-fvisibility=hidden"])] : []),
                linkerSettings: [.linkedLibrary("simdjson")]),
        // Opens the plugin (dlopen) the first time the simdjson parser is asked for.
        .target(name: "CSimdJSONLoader", dependencies: ["CPluginLoader"], linkerSettings: [.linkedLibrary("dl")]),
    ]
}

// The importer is generic over the JSON reader; let the optimizer specialize it across modules
// (see localFlags). Without the flag a release build does only Swift's default, conservative
// cross-module optimization: bench-check's import then costs 1.9 (jansson) and 3.3 (simdjson)
// times the instructions.
let optimize: [SwiftSetting] = localFlags ? [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))] : []
// The jansson arena's allocator reads a thread-local variable per allocation jansson makes: TLS
// descriptors (the default on arm64) make that read a short call instead of __tls_get_addr,
// which a library opened with dlopen (Python's ctypes) otherwise goes through. x86-64 only.
#if arch(x86_64)
let tlsDescriptors: [CSetting] = localFlags ? [.unsafeFlags(["-mtls-dialect=gnu2"])] : []
#else
let tlsDescriptors: [CSetting] = []
#endif

// The PostgreSQL store is built when libpq's header is there, decided as for simdjson: the
// environment variable MAPPING_POSTGRES=1 or =0, or unset, whether Debian's libpq-fe.h is installed.
// Without it, opening a postgresql:// store is MAPPING_EUNAVAILABLE. libmapping.so never links libpq
// (it brings OpenSSL, Kerberos, LDAP and 20 more libraries): CPostgresLoader opens the plugin
// libmapping-postgres.so, the one library that links libpq, on the first postgresql:// open.
let postgresWanted: Bool = {
    switch ProcessInfo.processInfo.environment["MAPPING_POSTGRES"] {
    case "1": return true
    case "0": return false
    default: return FileManager.default.fileExists(atPath: "/usr/include/postgresql/libpq-fe.h")
    }
}()
var postgresDependency: [Target.Dependency] { postgresWanted ? ["MappingPostgres"] : [] }
var postgresDefine: [SwiftSetting] { postgresWanted ? [.define("MAPPING_POSTGRES")] : [] }
var postgresProducts: [Product] {
    // The plugin the loader opens, built beside libmapping.so.
    postgresWanted ? [.library(name: "mapping-postgres", type: .dynamic, targets: ["CPostgresPlugin"])] : []
}
var postgresTargets: [Target] {
    guard postgresWanted else { return [] }
    return [
        // The table of libpq functions the store calls, handed over by the plugin.
        .target(name: "CPostgresPlugin", publicHeadersPath: ".", linkerSettings: [.linkedLibrary("pq")]),
        // Opens the plugin (dlopen) the first time a postgresql:// store is opened.
        .target(name: "CPostgresLoader", dependencies: ["CPluginLoader"], linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "MappingPostgres", dependencies: ["MappingCore", "MappingSQL", "CPostgresLoader"],
                swiftSettings: optimize),
        .testTarget(name: "MappingPostgresTests", dependencies: ["MappingPostgres", "MappingSQL"]),
    ]
}

let package = Package(
    name: "libmapping",
    products: [
        .library(name: "mapping", type: .dynamic, targets: ["Mapping"]),
        // The engine as Swift modules, for Swift programs such as the `mapping` tool (tools/cli).
        .library(name: "MappingEngine", targets: ["MappingEngine"]),
    ] + simdjsonProducts + postgresProducts,
    targets: [
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        .systemLibrary(name: "CMappingHeader"),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "MappingLock"),
        // Finds and opens libmapping's plugins (the simdjson parser, the PostgreSQL store).
        .target(name: "CPluginLoader", linkerSettings: [.linkedLibrary("dl")]),
        // Raw memory behind one lock (the context's). Its fields are @exclusivity(unchecked) in the
        // source, not by the flag -enforce-exclusivity=unchecked, so a dependent gets that too.
        .target(name: "MappingArena", swiftSettings: optimize),
        .target(name: "MappingCore", dependencies: ["MappingLock", "MappingArena", "CMappingHeader"], exclude: ["Import/HotPath.md"],
                swiftSettings: optimize),
        // C, since jansson's allocation functions are C function pointers with per-thread state.
        .target(name: "CJanssonArena", dependencies: ["CJansson"], cSettings: tlsDescriptors),
        .target(name: "MappingJSON", dependencies: ["MappingLock", "MappingArena", "MappingCore", "CJansson", "CJanssonArena"] + simdjsonDependency,
                swiftSettings: optimize + simdjsonDefine),
        .target(name: "MappingSQL", dependencies: ["MappingCore"], swiftSettings: optimize),
        .target(name: "MappingSQLite", dependencies: ["MappingCore", "MappingSQL", "CSQLite"], swiftSettings: optimize),
        .target(name: "MappingEngine", dependencies: ["MappingLock", "MappingArena", "MappingCore", "MappingJSON", "MappingSQL",
                                                      "MappingSQLite"] + postgresDependency,
                swiftSettings: optimize + simdjsonDefine + postgresDefine),
        .target(name: "Mapping", dependencies: ["MappingLock", "MappingArena", "MappingCore", "MappingJSON", "MappingEngine", "CMappingHeader"],
                swiftSettings: optimize),
        .target(name: "_MappingTestSupport", dependencies: ["MappingCore", "MappingJSON", "MappingEngine"],
                path: "Tests/_MappingTestSupport"),
        .testTarget(name: "MappingCoreTests", dependencies: ["MappingArena", "MappingCore", "MappingEngine", "_MappingTestSupport"]),
        .testTarget(name: "MappingJSONTests", dependencies: ["MappingJSON", "MappingEngine", "_MappingTestSupport"]),
        .testTarget(name: "MappingCAPITests", dependencies: ["Mapping", "MappingLock", "CMappingHeader"]),
        .testTarget(name: "MappingSQLiteTests", dependencies: ["MappingSQLite", "MappingSQL", "MappingEngine", "MappingLock", "_MappingTestSupport"]),
    ] + simdjsonTargets + postgresTargets,
    // simdjson's headers need C++17 (only CSimdJSON is C++); a setting, so not an unsafe flag.
    cxxLanguageStandard: .cxx17
)

