public import LockstepCore

/// Two versions of an object compared by the server (``Bucket/compare(_:from:to:)``): the
/// jsondiff that turns one into the other, and each string that differs as a text diff.
public struct VersionComparison: Sendable, Equatable {
    public var from: Int
    public var to: Int
    /// The jsondiff from version ``from`` to version ``to``.
    public var diff: ObjectDiff
    /// Each string that differs, by its place (`notes`, `address.street`), as runs of kept,
    /// deleted and inserted text.
    public var text: [String: TextDiff]

    init(json: JSONValue) throws(LockstepClientError) {
        guard let from = json["from"]?.integerValue, let to = json["to"]?.integerValue else {
            throw LockstepClientError.protocolViolation("a comparison without from or to")
        }
        let comparison: ObjectComparison
        do {
            comparison = try ObjectComparison(json: json)
        } catch {
            throw LockstepClientError.protocolViolation("an unreadable comparison: \(error)")
        }
        self.from = Int(from)
        self.to = Int(to)
        diff = comparison.diff
        text = comparison.text
    }
}
