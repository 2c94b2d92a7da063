/// Where the client reads the time of an edit, on the server's clock.
///
/// Every change a client sends carries its edit time (Lockstep's `"t"` field, nanoseconds since
/// the Unix epoch on the server's clock), and the server lets the later edit win where two edits
/// collide. Device clocks cannot be trusted for that, so the time comes from a source that
/// tracks the server's clock, normally the client's ``ServerClock``. Plug one in through
/// ``LockstepClient/Configuration/editTimes``; with none, changes carry no time and the server
/// orders them by arrival.
///
/// ```swift
/// var configuration = LockstepClient.Configuration()
/// configuration.editTimes = NoEditTimes()      // order by arrival, as Simperium clients are
/// ```
public protocol EditTimeSource: Sendable {
    /// The current time on the server's clock in nanoseconds since the Unix epoch, or `nil`
    /// when it is not known yet (never calibrated).
    func serverTimeNow() -> Int64?
}

/// The source that never knows the time: changes go out without `"t"`.
///
/// The server then orders this client's changes by their arrival, as it does those of
/// unmodified Simperium clients: a change made offline long ago can win over a later one made
/// online. Use it only when arrival order is what the app means.
public struct NoEditTimes: EditTimeSource {
    /// The source; it has no settings.
    public init() {}
    /// Always `nil`: no edit carries a time.
    public func serverTimeNow() -> Int64? { nil }
}

/// A calibrated ``ServerClock`` stamps edits with the server's time:
/// `LockstepClient.Configuration(editTimes: serverClock)`.
extension ServerClock: EditTimeSource {
    /// ``now()`` in nanoseconds since the Unix epoch; `nil` before the first exchange.
    public func serverTimeNow() -> Int64? { now()?.nanosecondsSinceEpoch }
}
