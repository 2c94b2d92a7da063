import Benchmark
import LockstepCore

/// LockstepCore's hot paths on the documents of `SyntheticDocuments`: JSON read and written,
/// jsondiff made, applied and transformed, and a text member's delta made, applied and
/// transformed. Every change to the server's or the SDK's merge path goes through these.
///
/// Compare a change with main (BENCHMARKS.md, "Micro-benchmarks of the core"):
///
///     swift package --allow-writing-to-package-directory benchmark baseline update main   # on main
///     swift package benchmark baseline compare main                                      # on the change
///
/// Allocations are counted exactly and barely move between runs (a text diff's by a few), so
/// a change that allocates 5 % more fails the comparison; time, which a shared machine makes
/// noisy, fails only past a quarter more at the median.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        // Not .cpuTotal: Linux counts a thread's CPU in 10 ms ticks, longer than most of these.
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        maxDuration: .seconds(2),
        thresholds: [
            .wallClock: .init(relative: BenchmarkThresholds.Relative.relaxed),
            .mallocCountTotal: .init(relative: BenchmarkThresholds.Relative.default),
        ]
    )

    for (name, bytes) in [("1 KB", 1_000), ("10 KB", 10_000), ("1 MB", 1_000_000)] {
        let documents = SyntheticDocuments.pair(approximateBytes: bytes)
        objectBenchmarks(size: name, documents)
    }
    textBenchmarks(SyntheticDocuments.textEdit(approximateBytes: 100_000))
}

/// JSON and jsondiff on an object of records, edited in about a quarter of them.
private func objectBenchmarks(size: String, _ documents: SyntheticDocuments.Pair) {
    let (base, mine, theirs) = (documents.base, documents.mine, documents.theirs)
    let bytes = JSONValue.object(base).jsonBytes
    let myDiff = ObjectDiff(from: base, to: mine)
    let theirDiff = ObjectDiff(from: base, to: theirs)

    Benchmark("JSON parse, object \(size)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try JSONValue(parsing: bytes)) }
    }
    Benchmark("JSON serialize, object \(size)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(JSONValue.object(base).jsonBytes) }
    }
    Benchmark("diff make, object \(size)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(ObjectDiff(from: base, to: mine)) }
    }
    Benchmark("diff apply, object \(size)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try myDiff.apply(to: base)) }
    }
    Benchmark("diff transform, object \(size)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try myDiff.transformed(over: theirDiff, base: base, winner: .incoming))
        }
    }
}

/// One word replaced in a 100 KB text, transformed over a sentence added elsewhere in it.
private func textBenchmarks(_ documents: SyntheticDocuments.Pair) {
    guard case .string(let base)? = documents.base["text"], case .string(let mine)? = documents.mine["text"],
        case .string(let theirs)? = documents.theirs["text"]
    else { fatalError("SyntheticDocuments.textEdit gives a text member") }
    let myDelta = TextDelta.make(from: base, to: mine)
    let theirDelta = TextDelta.make(from: base, to: theirs)

    Benchmark("text delta make, one word in 100 KB") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(TextDelta.make(from: base, to: mine)) }
    }
    Benchmark("text delta apply, one word in 100 KB") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try TextDelta.apply(myDelta, to: base)) }
    }
    Benchmark("text delta transform, one word in 100 KB") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try TextDelta.transform(myDelta, over: theirDelta, base: base)) }
    }
}
