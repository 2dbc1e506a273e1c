// swift-tools-version:6.0
// `mapping`, the command-line tool: check a spec, import a payload into a store, query and serialize
// a store, explain how a payload fits its mappings, draft a spec from an OpenAPI document. A package
// of its own so that its dependencies (argument parsing, YAML) are never built into libmapping.so
// nor by `make test`'s library builds; it uses the engine's Swift modules directly.
import PackageDescription

let package = Package(
    name: "mapping-cli",
    // Named mapping-tool here: the engine package already has a product named mapping (libmapping.so);
    // `make install` installs it as `mapping`.
    products: [.executable(name: "mapping-tool", targets: ["MappingTool"])],
    dependencies: [
        .package(name: "libmapping", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.0"),
    ],
    targets: [
        .executableTarget(name: "MappingTool",
                          dependencies: [.product(name: "MappingEngine", package: "libmapping"),
                                         .product(name: "ArgumentParser", package: "swift-argument-parser"),
                                         .product(name: "Yams", package: "Yams")],
                          path: "Sources/mapping"),
    ]
)
