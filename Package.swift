// swift-tools-version:6.0
// libmapping: JSON from web APIs mapped into a live, identity-mapped object graph.
//
// Targets, from the inside out:
//   MappingLock   the one lock (a pthread mutex ThreadSanitizer understands)
//   MappingCore   safe Swift only: spec model, values, store, importer, serializer
//   CJansson      system library wrapping jansson (shim.h turns its macros into functions)
//   MappingJSON   the only target that touches json_t: parsing and the reader the importer walks
//   CMappingHeader  exposes include/mapping.h to Swift so the C ABI uses the header's own types
//   Mapping       the C ABI (@_cdecl), built as the dynamic library product libmapping.so
import PackageDescription

let optimize: [SwiftSetting] = [
    // The importer is generic over the JSON reader; let the optimizer specialize it across modules.
    .unsafeFlags(["-cross-module-optimization"], .when(configuration: .release)),
]

let package = Package(
    name: "libmapping",
    products: [
        .library(name: "mapping", type: .dynamic, targets: ["Mapping"]),
    ],
    targets: [
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        .systemLibrary(name: "CMappingHeader"),
        .target(name: "MappingLock"),
        .target(name: "MappingCore", dependencies: ["MappingLock"], swiftSettings: optimize),
        .target(name: "MappingJSON", dependencies: ["MappingCore", "CJansson"], swiftSettings: optimize),
        .target(name: "Mapping", dependencies: ["MappingCore", "MappingJSON", "MappingLock", "CMappingHeader"],
                swiftSettings: optimize),
        .target(name: "_MappingTestSupport", dependencies: ["MappingCore", "MappingJSON"],
                path: "Tests/_MappingTestSupport"),
        .testTarget(name: "MappingCoreTests", dependencies: ["MappingCore", "_MappingTestSupport"]),
        .testTarget(name: "MappingJSONTests", dependencies: ["MappingJSON", "_MappingTestSupport"]),
        .testTarget(name: "MappingCAPITests", dependencies: ["Mapping", "MappingLock", "CMappingHeader"]),
    ]
)
