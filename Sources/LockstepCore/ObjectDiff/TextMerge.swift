/// Merging two concurrent edits of one string as text patches.
enum TextMerge {
    enum Outcome: Equatable {
        /// `mine` rebased: the delta to apply after `theirs`, or `nil` when nothing is left.
        case rebased(String?)
        /// A patch of `mine` no longer applies where `theirs` left the text.
        case conflict
    }

    /// Rebases text delta `mine` over `theirs`, both made against `base`, by applying `mine`'s
    /// patches with fuzzy matching to the text `theirs` left. Succeeds only when every patch
    /// applies; a patch that cannot find its place is a conflict for the merge rules to settle.
    static func rebase(_ mine: String, over theirs: String, base: String, at path: DiffPath) throws(DiffError) -> Outcome {
        let theirText: String
        do {
            theirText = try TextDelta.apply(theirs, to: base)
        } catch {
            throw DiffError(.badTextDelta, at: path, "text delta does not apply: \(error)")
        }
        return try rebase(mine, onto: theirText, base: base, at: path)
    }

    /// Rebases text delta `mine`, made against `base`, onto `theirText`, which concurrent
    /// edits made of `base`.
    static func rebase(_ mine: String, onto theirText: String, base: String, at path: DiffPath) throws(DiffError) -> Outcome {
        do {
            let patches = TextPatch.make(from: base, diff: try TextDiff(delta: mine, source: base))
            let (merged, applied) = patches.apply(to: theirText, options: .textMerge)
            guard applied.allSatisfy({ $0 }) else { return .conflict }
            return .rebased(merged.unicodeScalars.elementsEqual(theirText.unicodeScalars) ? nil : TextDelta.make(from: theirText, to: merged))
        } catch {
            throw DiffError(.badTextDelta, at: path, "text delta does not apply: \(error)")
        }
    }
}

extension ListText {
    /// Rebases a `dL` delta over another by merging their texts, in the text form both fit.
    static func rebase(
        _ mine: String, over theirs: String, base: [JSONValue], at path: DiffPath, rewritingForms: Bool = true
    ) throws(DiffError) -> TextMerge.Outcome {
        for form in Form.allCases {
            let text = text(of: base, in: form)
            guard let theirText = try? TextDelta.apply(theirs, to: text),
                (try? TextDelta.apply(mine, to: text)) != nil
            else { continue }
            guard case .rebased(let delta) = try TextMerge.rebase(mine, over: theirs, base: text, at: path) else {
                return .conflict
            }
            guard let delta else { return .rebased(nil) }
            guard let theirList = elements(of: theirText, in: form),
                let mergedText = try? TextDelta.apply(delta, to: theirText),
                let mergedList = elements(of: mergedText, in: form)
            else { return .conflict }
            return mergedList == theirList ? .rebased(nil) : .rebased(Self.delta(from: theirList, to: mergedList))
        }
        guard rewritingForms else { throw DiffError(.badTextDelta, at: path, "list deltas do not fit the list in any text form") }
        // Each delta fits a different form: made by clients that write lists differently (an
        // iOS client and a JavaScript one). Both are valid, and were refused as malformed (found
        // by fuzz-object-diff): each is rewritten as the reference form's delta to the list it
        // makes, and those merge.
        let myList = try apply(mine, to: base, at: path)
        let theirList = try apply(theirs, to: base, at: path)
        return try rebase(
            Self.delta(from: base, to: myList), over: Self.delta(from: base, to: theirList), base: base, at: path, rewritingForms: false)
    }
}
