public import Foundation

/// One local change in the outbox, as ``Outbox`` shows it.
///
/// Edits to an object that have not been sent yet are mostly one change: a later edit of the
/// same members, and any edit of an object the server has not seen yet, updates the change
/// that waits; an edit of other members of a synced object queues a change of its own, so
/// that each member keeps the time it was written at.
///
/// ```swift
/// for change in try client.outbox.pending {
///     print(change.bucket, change.key, change.operation, change.priority, change.status)
/// }
/// ```
public struct OutboxChange: Sendable, Hashable, Identifiable {
    /// Where the change is in its life.
    public enum Status: Sendable, Hashable {
        /// Waiting to be sent; can still be cancelled.
        case queued
        /// Sent and waiting for the server's acknowledgement; resent (with the same change id)
        /// after a reconnect until it is acknowledged.
        case sent
        /// Refused by the server; the local object was rolled back. Stays listed until
        /// ``Outbox/dismissRejected()``.
        case rejected(code: Int, message: String?)
    }

    /// What the change does to its object.
    public enum Operation: String, Sendable, Hashable {
        /// Creates or edits the object.
        case modify = "M"
        /// Removes the object for good.
        case remove = "-"
    }

    /// The change's position in the outbox; later changes have larger ids.
    public var id: Int64
    /// The bucket of the changed object.
    public var bucket: String
    /// The key of the changed object.
    public var key: String
    /// The client change id (`ccid`): the same on every resend, so the server applies the
    /// change at most once.
    public var changeID: String
    /// Whether the change edits or removes its object.
    public var operation: Operation
    /// How soon it goes, relative to the other objects' changes (see ``ChangePriority``).
    public var priority: ChangePriority
    /// Queued, sent, or refused.
    public var status: Status
    /// When the edit was made, in nanoseconds since the Unix epoch on the server's clock, if the
    /// client's ``EditTimeSource`` knew.
    public var editTime: Int64?
    /// When the change entered the outbox, on this device's clock.
    public var createdAt: Date
}
