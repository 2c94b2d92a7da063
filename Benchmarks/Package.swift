// swift-tools-version:6.2
// The micro-benchmarks of LockstepCore (JSON, jsondiff, text deltas), under package-benchmark:
// a package of its own, as Hummingbird keeps its benchmarks, so that neither Lockstep's users
// nor its tests build the benchmark harness. BENCHMARKS.md says how to compare a change with main.
import PackageDescription

let package = Package(
    name: "LockstepBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Lockstep", path: "../"),
        // The explicit traits leave out RuntimeInterposer (Swift 6.3 on Linux), which the
        // package mirror does not carry; malloc counts still come from MallocInterposer.
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "Core",
            dependencies: [
                .product(name: "LockstepCore", package: "Lockstep"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/Core",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        )
    ]
)
