import FuzzSupport
import LockstepCore

@main enum FuzzObjectDiff {
    static func main() { runFuzzer { data, count in fuzzObjectDiff(data, count) } }
}

/// jsondiff: reading diffs, applying them, making them and transforming one over another.
///
/// Input: `base NUL diffA NUL diffB NUL schema`, each JSON (the schema may be empty).
///
/// Laws: a diff written back reads the same; a diff made from two objects turns the first into
/// the second, with or without a schema; two diffs that apply to the same base transform over
/// each other, either winning, and the result applies after the other. Anything else may fail,
/// but only with a `DiffError`.
func fuzzObjectDiff(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let parts = FuzzInput(data, count).parts(4)
    guard case .object(let base)? = try? JSONValue(parsing: parts[0]) else { return 0 }
    let schema = (try? JSONValue(parsing: parts[3])).flatMap { try? DiffSchema(json: $0) }
    let diffs = [parts[1], parts[2]].map { part in (try? JSONValue(parsing: part)).flatMap { try? ObjectDiff(json: $0) } }

    var results: [JSONObject?] = []
    for diff in diffs {
        guard let diff else {
            results.append(nil)
            continue
        }
        law((try? ObjectDiff(json: diff.json)) == diff, "the diff \(diff.json) reads back as another diff")
        let result = try? diff.apply(to: base)
        results.append(result)
        if let result { checkMake(from: base, to: result, schema: schema) }
    }
    if let a = diffs[0], let b = diffs[1], let afterA = results[0], let afterB = results[1] {
        for winner in [ConflictWinner.incoming, .applied] {
            checkTransform(a, over: b, base: base, after: afterB, winner: winner)
            checkTransform(b, over: a, base: base, after: afterA, winner: winner)
        }
    }
    return 0
}

private func checkMake(from old: JSONObject, to new: JSONObject, schema: DiffSchema?) {
    let plain = ObjectDiff(from: old, to: new)
    law(plain.isPortable, "a diff made without a schema uses operations some clients cannot apply: \(plain.json)")
    law((try? plain.apply(to: old)) == new, "the diff \(plain.json) made from \(JSONValue.object(old)) does not give \(JSONValue.object(new))")
    if let schema {
        let hinted = ObjectDiff(from: old, to: new, schema: schema)
        law(
            (try? hinted.apply(to: old)) == new,
            "the diff \(hinted.json) made with a schema from \(JSONValue.object(old)) does not give \(JSONValue.object(new))")
    }
}

private func checkTransform(_ diff: ObjectDiff, over applied: ObjectDiff, base: JSONObject, after: JSONObject, winner: ConflictWinner) {
    let rebased: ObjectDiff
    do {
        rebased = try diff.transformed(over: applied, base: base, winner: winner)
    } catch {
        // Both diffs apply to the base, so both are valid: refusing one would reject a client's
        // change for being concurrent with another.
        law(false, "\(diff.json) transformed over \(applied.json) (base \(JSONValue.object(base)), \(winner)) was refused: \(error)")
        return
    }
    do {
        _ = try rebased.apply(to: after)
    } catch {
        law(false, "\(diff.json) transformed over \(applied.json) (base \(JSONValue.object(base)), \(winner)) gives \(rebased.json), which does not apply: \(error)")
    }
}
