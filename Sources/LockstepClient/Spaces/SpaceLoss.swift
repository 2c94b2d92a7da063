/// This user lost a space's bucket on this device: an owner removed them from the space, or
/// deleted it, or they left. ``LockstepClient/lostSpaces`` tells the app, once per bucket the
/// store synced, also when the bucket held nothing (its objects, if any, also go with
/// ``BucketEvent/Origin/revoked(message:)`` events).
public struct SpaceLoss: Sendable, Equatable {
    /// The space's name.
    public var space: String
    /// The bucket forgotten, as stored: `__<space>.<bucket>`.
    public var bucket: String
    /// Why: the server's reason, e.g. "you were removed from space job-1234".
    public var reason: String

    public init(space: String, bucket: String, reason: String) {
        self.space = space
        self.bucket = bucket
        self.reason = reason
    }
}

extension LockstepClient {
    /// Every space bucket this user loses from now on, as the client forgets it; ends when the
    /// client is closed.
    ///
    /// ```swift
    /// for await loss in client.lostSpaces {
    ///     alert("\(loss.space) is no longer shared with you: \(loss.reason)")
    /// }
    /// ```
    public var lostSpaces: AsyncStream<SpaceLoss> {
        replica.spaceLosses.stream()
    }
}
