import LockstepCore
import Logging

extension ServerClock {
    /// The store together with this boot's identity, or `nil` when either is missing: without
    /// a boot identity a saved calibration could silently outlive a reboot, so none is kept.
    static func persistence(
        store: (any ClockCalibrationStore)?,
        bootIdentity: any BootIdentitySource,
        logger: Logger
    ) -> (store: any ClockCalibrationStore, bootIdentity: String)? {
        guard let store else { return nil }
        do {
            return (store, try bootIdentity.currentBootIdentity())
        } catch {
            logger.warning("no boot identity; the clock calibration will not be kept", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The saved history if it was measured in this boot.
    static func restoredHistory(from store: any ClockCalibrationStore, boot: String, logger: Logger) -> ClockHistory? {
        do {
            return try store.load()?.history(forBoot: boot)
        } catch {
            logger.warning("could not read the clock calibration; starting afresh", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Saves `history` under this boot's identity, if the clock has a store.
    func save(_ history: ClockHistory) {
        guard let persistence else { return }
        do {
            try persistence.store.save(ClockCalibration(bootIdentity: persistence.bootIdentity, history: history))
        } catch {
            logger.warning("could not save the clock calibration", metadata: ["error": "\(error)"])
        }
    }
}
