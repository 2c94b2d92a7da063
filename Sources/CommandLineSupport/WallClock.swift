#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import LockstepClient

/// This machine's wall clock, read against the monotonic clock a `ServerClock` measures with,
/// so that an estimate of a server's time can be set beside the local date (`lockstep time`)
/// or checked against a server on this machine whose offset is known (`lockstep-bench clock`).
public enum WallClock {
    /// Nanoseconds since the Unix epoch (`CLOCK_REALTIME`, the clock the Lockstep server reads).
    public static func now() -> Int64 {
        var reading = timespec()
        clock_gettime(CLOCK_REALTIME, &reading)
        return Int64(reading.tv_sec) * 1_000_000_000 + Int64(reading.tv_nsec)
    }

    /// The wall clock minus `ContinuousTimeSource`'s reading: what a server-minus-local offset
    /// would be for a server reading this machine's wall clock. The wall clock is read between
    /// two monotonic readings, a few times, and the tightest pair is kept, so the answer is good
    /// to a fraction of a microsecond unless the thread is preempted every time.
    public static func offsetFromMonotonic() -> Int64 {
        let monotonic = ContinuousTimeSource()
        var best: (offset: Int64, span: Int64) = (0, .max)
        for _ in 0..<5 {
            let before = monotonic.now()
            let wall = now()
            let after = monotonic.now()
            if after - before < best.span {
                best = (wall - (before + (after - before) / 2), after - before)
            }
        }
        return best.offset
    }
}
