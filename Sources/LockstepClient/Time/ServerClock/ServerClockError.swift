/// Why a ``ServerClock`` could not answer.
public enum ServerClockError: Error, Hashable, Sendable {
    /// No exchange has succeeded in this boot, so there is no server time to convert.
    case uncalibrated
}
