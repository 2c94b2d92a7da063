/// Tells one boot of the device from the next, so that a calibration measured on a monotonic
/// clock (which restarts at every boot) is never applied to the wrong boot.
public protocol BootIdentitySource: Sendable {
    /// A string that stays the same until the device reboots, and changes when it does.
    func currentBootIdentity() throws -> String
}
