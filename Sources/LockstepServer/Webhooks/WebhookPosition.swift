/// Where an event stands in its app's webhook order: every endpoint of the app receives the
/// events it wants in this order, which is commit order.
///
/// A change's events take the change's place in its app's commit order (``GroupWrites``'s
/// app sequence) as ``sequence``, and ``step`` 0 (1 for the change's second event, a purchase).
/// An event that is not a change (a space's members, a blob) is recorded after the app's
/// latest change, as `sequence` = that change's and the next free `step`: so the order is
/// the order in which the store took them, on one node or several (each is recorded while
/// the app's commit order stands still: inside SQLite's one writer, or under the app's row
/// lock in PostgreSQL).
public struct WebhookPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var sequence: Int64
    public var step: Int64

    public init(sequence: Int64, step: Int64) {
        self.sequence = sequence
        self.step = step
    }

    /// Before every event.
    public static let start = WebhookPosition(sequence: 0, step: -1)

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.sequence, lhs.step) < (rhs.sequence, rhs.step)
    }

    /// `<sequence>.<step>`: an event's id is `evt_` and this.
    public var description: String { "\(sequence).\(step)" }

    /// Reads ``description``.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let sequence = Int64(parts[0]), let step = Int64(parts[1]) else { return nil }
        self.init(sequence: sequence, step: step)
    }
}
