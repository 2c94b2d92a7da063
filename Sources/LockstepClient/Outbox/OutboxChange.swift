public import Foundation

/// One local change in the outbox, as ``Outbox`` shows it.
///
/// Edits to an object that have not been sent yet are one change: each edit updates it, and
/// what is sent is the difference between the last acknowledged version (the ghost) and the
/// object as it is locally at that moment.
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
    public var bucket: String
    public var key: String
    /// The client change id (`ccid`): the same on every resend, so the server applies the
    /// change at most once.
    public var changeID: String
    public var operation: Operation
    public var priority: ChangePriority
    public var status: Status
    /// When the edit was made, in nanoseconds since the Unix epoch on the server's clock, if the
    /// client's ``EditTimeSource`` knew.
    public var editTime: Int64?
    /// When the change entered the outbox, on this device's clock.
    public var createdAt: Date
}
