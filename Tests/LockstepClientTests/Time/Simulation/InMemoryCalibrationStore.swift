import LockstepClient
import LockstepCore
import Synchronization

/// A calibration store that outlives the clocks using it, as a file would outlive the app.
final class InMemoryCalibrationStore: ClockCalibrationStore {
    private let saved = Mutex<ClockCalibration?>(nil)

    func load() throws -> ClockCalibration? {
        saved.withLock { $0 }
    }

    func save(_ calibration: ClockCalibration) throws {
        saved.withLock { $0 = calibration }
    }
}

/// A boot identity the test chooses: change it to simulate a reboot.
struct FixedBootIdentity: BootIdentitySource {
    var identity: String

    func currentBootIdentity() throws -> String {
        identity
    }
}
