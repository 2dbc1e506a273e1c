// swift-tools-version:6.0
// docs/swift.md's tutorial as a package of its own that depends on libmapping as a Swift user's
// does, here by path: on this checkout, or on the one LIBMAPPING_PATH names (run.sh builds a
// copy of it elsewhere). run.sh builds it by version with docs/swift.md's own Package.swift.
import PackageDescription
import Foundation

let package = Package(
    name: "tutorial",
    dependencies: [
        .package(name: "libmapping", path: ProcessInfo.processInfo.environment["LIBMAPPING_PATH"] ?? "../.."),
    ],
    targets: [
        .executableTarget(name: "tutorial", dependencies: [.product(name: "MappingEngine", package: "libmapping")]),
    ]
)
