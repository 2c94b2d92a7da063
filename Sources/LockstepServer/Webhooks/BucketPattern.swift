import Foundation

/// A bucket name with `*` standing for any run of characters (none included), as an endpoint
/// chooses the buckets whose events it wants: `items`, `job-*`, `__*.items` (the `items` of
/// every space), `*`.
///
/// Names are matched as clients address buckets: a space's bucket as `__<space>.<bucket>`.
public struct BucketPattern: Sendable, Hashable, CustomStringConvertible {
    public let text: String
    /// The literal runs between the stars.
    private let pieces: [Substring]
    private let anchoredStart: Bool
    private let anchoredEnd: Bool

    /// A pattern from its text; `nil` unless it is 1 to 256 of `a-z A-Z 0-9 . _ % @ - *`.
    public init?(_ text: String) {
        // A bucket's own name, with stars in it.
        guard EntityName.isValid(String(text.map { $0 == "*" ? "a" : $0 })) else { return nil }
        self.text = text
        pieces = text.split(separator: "*", omittingEmptySubsequences: false)
        anchoredStart = !text.hasPrefix("*")
        anchoredEnd = !text.hasSuffix("*")
    }

    /// What a pattern may be made of, for messages.
    static let rule = "1 to 256 of a-z A-Z 0-9 . _ % @ - and * (any run of characters)"

    public var description: String { text }

    /// Whether `name` matches: the literal runs appear in order, the first at the start and
    /// the last at the end unless a star stands there.
    public func matches(_ name: String) -> Bool {
        if pieces.count == 1 { return name == text }
        var rest = Substring(name)
        for (index, piece) in pieces.enumerated() {
            if piece.isEmpty { continue }
            if index == 0 && anchoredStart {
                guard rest.hasPrefix(piece) else { return false }
                rest = rest.dropFirst(piece.count)
            } else if index == pieces.count - 1 && anchoredEnd {
                return rest.hasSuffix(piece)
            } else {
                guard let found = rest.range(of: piece) else { return false }
                rest = rest[found.upperBound...]
            }
        }
        return true
    }
}
