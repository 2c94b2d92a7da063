public import LockstepCore

/// Where a ``ServerClock`` keeps its calibration between launches of the app.
public protocol ClockCalibrationStore: Sendable {
    /// The calibration saved last, or `nil` if none was.
    func load() throws -> ClockCalibration?
    /// Replaces the saved calibration.
    func save(_ calibration: ClockCalibration) throws
}
