// swift-tools-version:6.2
import PackageDescription

// Coverage-guided fuzz targets (libFuzzer) for the parsers that read what strangers send; see
// ../FUZZING.md. A package of its own, so that `swift test` never builds it, and one that
// compiles only what the parsers need: LockstepCore and a few server and client files, linked
// in through symlinks under Sources/, never Hummingbird, NIO or GRDB. Only our code is built
// with coverage and AddressSanitizer; swift-crypto is built plain,
// which keeps the build short and the fuzzer's attention on our code.

let languageSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]
// `Fuzz/coverage` builds a second copy (in .build-fuzz-coverage) that also counts source
// coverage, to report which lines of the code under test the corpora reach.
let countsCoverage = Context.environment["LOCKSTEP_FUZZ_COVERAGE"] != nil
let coverageFlags = countsCoverage ? ["-profile-generate", "-profile-coverage-mapping"] : []
let instrumented = languageSettings + [.unsafeFlags(["-sanitize=fuzzer,address"] + coverageFlags)]
let testable: [SwiftSetting] = [.unsafeFlags(["-enable-testing"])]

func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + dependencies,
        swiftSettings: instrumented,
        // gold fails on these links (an internal error in its DWARF reader); lld links them.
        linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"] + (countsCoverage ? ["-profile-generate"] : []))]
    )
}

let package = Package(
    name: "LockstepFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The same requirement as ../Package.swift; LockstepCore imports nothing else of theirs.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
    ],
    targets: [
        // ../Sources/LockstepCore itself (a symlink), built as ../Package.swift builds it.
        .target(
            name: "LockstepCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: instrumented + testable
        ),
        // The server's streaming message and change readers (symlinks to their files), whose
        // internals the harnesses reach with `@testable import`.
        .target(name: "ServerParsers", dependencies: ["LockstepCore"], swiftSettings: instrumented + testable),
        // The client's peer-sync message readers and release ledger (symlinks to their files).
        .target(
            name: "ClientParsers",
            dependencies: ["LockstepCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: instrumented + testable
        ),
        .target(name: "FuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["FuzzDriver"], swiftSettings: instrumented),
        fuzzTarget("fuzz-json", ["LockstepCore"]),
        fuzzTarget("fuzz-object-diff", ["LockstepCore"]),
        fuzzTarget("fuzz-text-delta", ["LockstepCore"]),
        fuzzTarget("fuzz-socket-message", ["ServerParsers", "LockstepCore"]),
        fuzzTarget("fuzz-release-window", ["ClientParsers", "LockstepCore"]),
        fuzzTarget("fuzz-release-config", ["LockstepCore"]),
        fuzzTarget("fuzz-peer-message", ["ClientParsers", "LockstepCore"]),
    ]
)
