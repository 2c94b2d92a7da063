public import Foundation
public import LockstepCore

/// Keeps the calibration in a small JSON file (a few kilobytes: the estimator's windows).
public struct FileClockCalibrationStore: ClockCalibrationStore {
    public let fileURL: URL

    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    public func load() throws -> ClockCalibration? {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return nil }
        return try JSONDecoder().decode(ClockCalibration.self, from: Data(contentsOf: fileURL))
    }

    public func save(_ calibration: ClockCalibration) throws {
        // Atomic, so a crash mid-write leaves the previous calibration rather than half of one.
        try JSONEncoder().encode(calibration).write(to: fileURL, options: .atomic)
    }
}
