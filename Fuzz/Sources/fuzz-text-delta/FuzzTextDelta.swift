import FuzzSupport
import LockstepCore

@main enum FuzzTextDelta {
    static func main() { runFuzzer { data, count in fuzzTextDelta(data, count) } }
}

/// Text deltas (diff-match-patch's delta format, the `v` of a `d` operation) and patches.
///
/// Input: `source NUL delta NUL otherDelta NUL text`, each read as UTF-8 text.
///
/// Laws: a delta that reads against its source writes back as a delta that gives the same
/// text; a delta made from two texts turns the first into the second; a delta transformed over
/// another applies after it; a patch applies to its own source exactly; and a patch applied to
/// any other text answers, whatever it finds there.
func fuzzTextDelta(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let parts = FuzzInput(data, count).parts(4).map { String(decoding: $0, as: UTF8.self) }
    let (source, delta, other, text) = (parts[0], parts[1], parts[2], parts[3])

    checkDiff(from: source, to: text)
    guard let diff = try? TextDiff(delta: delta, source: source) else { return 0 }
    let target = diff.target
    law(same((try? TextDelta.apply(diff.delta, to: source)), target), "the delta \(diff.delta) written back gives another text")
    checkDiff(from: source, to: target)

    if let otherTarget = try? TextDelta.apply(other, to: source) {
        do {
            if let rebased = try TextDelta.transform(delta, over: other, base: source) {
                law((try? TextDelta.apply(rebased, to: otherTarget)) != nil, "\(delta) over \(other) gives \(rebased), which does not apply")
            }
        } catch {
            law(false, "transforming two deltas that fit their base failed: \(error)")
        }
    }

    let patches = TextPatch.make(from: source, diff: diff)
    let (patched, applied) = patches.apply(to: source)
    law(applied.allSatisfy { $0 } && same(patched, target), "a patch does not apply exactly to its own source")
    _ = patches.apply(to: text)
    return 0
}

/// Texts compare by their scalars, as JSON strings do.
private func same(_ a: String?, _ b: String) -> Bool {
    a.map { $0.unicodeScalars.elementsEqual(b.unicodeScalars) } ?? false
}

private func checkDiff(from source: String, to target: String) {
    let delta = TextDelta.make(from: source, to: target)
    law(same((try? TextDelta.apply(delta, to: source)), target), "the delta \(delta) made from two texts does not give the second")
}
