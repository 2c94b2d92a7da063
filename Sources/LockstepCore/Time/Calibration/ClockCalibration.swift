/// A clock estimator's history, tagged with the boot it was measured in.
///
/// Monotonic clocks restart from zero at every boot, so samples stamped in one boot mean
/// nothing in the next. Persist a calibration with the current boot's identity; on load,
/// ``history(forBoot:)`` hands the history back only within the same boot.
public struct ClockCalibration: Sendable, Hashable, Codable {
    /// Identifies the boot whose monotonic clock stamped the history (Linux `boot_id`, a
    /// Darwin boot session, or anything else that changes exactly when the clock restarts).
    public var bootIdentity: String
    public var history: ClockHistory

    public init(bootIdentity: String, history: ClockHistory) {
        self.bootIdentity = bootIdentity
        self.history = history
    }

    /// The history if it was measured in `bootIdentity`'s boot, otherwise `nil`: after a reboot
    /// the calibration is gone, and the clock must say so rather than guess.
    public func history(forBoot bootIdentity: String) -> ClockHistory? {
        self.bootIdentity == bootIdentity ? history : nil
    }
}
