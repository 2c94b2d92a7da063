/// The local clock a ``ServerClock`` measures with: one that never jumps and keeps counting
/// while the device sleeps, read in nanoseconds since an origin that stays put until reboot.
///
/// The default, ``ContinuousTimeSource``, reads the same clock as Swift's `ContinuousClock`.
/// Tests inject a simulated source to drive time without sleeping.
public protocol MonotonicTimeSource: Sendable {
    /// Nanoseconds since this boot's origin.
    func now() -> Int64
    /// Suspends until `now()` reaches `deadline`; throws `CancellationError` when cancelled.
    func sleep(until deadline: Int64) async throws
}
