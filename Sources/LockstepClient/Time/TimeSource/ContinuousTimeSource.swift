#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The clock Swift's `ContinuousClock` reads, as nanoseconds since boot: `CLOCK_BOOTTIME` on
/// Linux and `CLOCK_MONOTONIC_RAW` (`mach_continuous_time`) on Apple platforms. Both count
/// through suspend and sleep, never jump when someone sets the date, and restart at reboot.
///
/// `ContinuousClock.Instant` hides its raw value, and the raw value is what survives an app
/// restart, so this reads the OS clock directly and sleeps on `ContinuousClock`.
public struct ContinuousTimeSource: MonotonicTimeSource {
    /// The system's clock; it has no settings.
    public init() {}

    /// Nanoseconds since boot, sleep included.
    public func now() -> Int64 {
        #if canImport(Darwin)
        return Int64(clock_gettime_nsec_np(CLOCK_MONOTONIC_RAW))
        #else
        var reading = timespec()
        clock_gettime(CLOCK_BOOTTIME, &reading)
        return Int64(reading.tv_sec) * 1_000_000_000 + Int64(reading.tv_nsec)
        #endif
    }

    /// Sleeps on `ContinuousClock` until `now()` reaches `deadline`; throws
    /// `CancellationError` when cancelled.
    public func sleep(until deadline: Int64) async throws {
        try await ContinuousClock().sleep(for: .nanoseconds(max(deadline - now(), 0)))
    }
}
