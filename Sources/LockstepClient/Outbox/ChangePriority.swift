/// How soon a local change should reach the server, relative to the others waiting.
///
/// The outbox sends higher priorities first. Changes to one object always reach the server in
/// the order they were made, whatever their priorities: an urgent edit of an object waits for
/// that object's earlier change to be acknowledged.
///
/// ```swift
/// try await orders.put(orderID, order, priority: .urgent)    // the customer is waiting
/// try await catalog.insert(entry, priority: .low)            // behind everything else
/// ```
///
/// Attachments queue behind data changes: an upload waits while the outbox holds a data change
/// at its priority or above, and uploads default to ``low``.
public enum ChangePriority: Int, Sendable, Comparable, CaseIterable, Codable {
    /// Bulk work that can wait behind everything else (a background import).
    case low = -1
    /// Ordinary edits.
    case normal = 0
    /// Changes the user is waiting on (a payment, a hand-off): sent before all others.
    case urgent = 1

    /// Lower priorities sort first: ``low`` < ``normal`` < ``urgent``.
    public static func < (lhs: ChangePriority, rhs: ChangePriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
