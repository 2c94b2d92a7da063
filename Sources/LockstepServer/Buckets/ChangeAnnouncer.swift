/// How the ``ChangeWriter`` announces a committed group's changes, in commit order, before any
/// of them is answered.
struct ChangeAnnouncer: Sendable {
    /// Work to finish before `events` are announced (a space's members brought up to date), or
    /// `nil` when there is none, which is most groups: then nothing waits for a task.
    var preparation: @Sendable (_ events: [ChangeEvent]) -> (@Sendable () async -> Void)?
    /// Announces one change to its bucket's subscribers.
    var announce: @Sendable (_ event: ChangeEvent) -> Void
    /// Runs `body`, which announces a group's changes and answers its refusals, in the group's
    /// order; what they queue for sockets is sent after it, each event loop woken once.
    var together: @Sendable (_ body: () -> Void) -> Void
}
