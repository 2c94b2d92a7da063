/// How the ``ChangeWriter`` announces a committed group's changes, in commit order, before any
/// of them is answered.
struct ChangeAnnouncer: Sendable {
    /// Work to finish before `events` are announced (a space's members brought up to date), or
    /// `nil` when there is none, which is most groups: then nothing waits for a task.
    var preparation: @Sendable (_ events: [ChangeEvent]) -> (@Sendable () async -> Void)?
    var announce: @Sendable (_ events: [ChangeEvent]) -> Void
}
