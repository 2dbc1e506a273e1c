// swift-tools-version:6.0
// Hand-written Swift baselines for `make bench` (issue 5), built only by `make bench`:
//   codable-baseline  Foundation's JSONDecoder + Codable structs, then dictionary identity maps
//   simd-baseline     simdjson's tape walked by hand (libmapping's own CSimdJSON target), the
//                     practical limit for this job in Swift
// Both build the same graph as bench/people.spec.json: people uniqued by id, their inline
// companies by id, their phones by number, ISO dates parsed, inverses kept.
import PackageDescription

let package = Package(
    name: "baselines",
    dependencies: [.package(name: "libmapping", path: "../..")],
    targets: [
        .target(name: "BaselineGraph", path: "Sources/BaselineGraph"),
        .executableTarget(name: "codable-baseline", dependencies: ["BaselineGraph"], path: "Sources/CodableBaseline"),
        .executableTarget(name: "simd-baseline",
                          dependencies: ["BaselineGraph", .product(name: "CSimdJSON", package: "libmapping")],
                          path: "Sources/SimdBaseline"),
    ]
)
