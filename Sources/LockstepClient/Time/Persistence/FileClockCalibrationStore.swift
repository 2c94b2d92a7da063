public import Foundation
public import LockstepCore

/// Keeps the calibration in a small JSON file (a few kilobytes: the estimator's windows).
///
/// ```swift
/// let clock = ServerClock(
///     transport: HTTPClockExchangeTransport(serverURL: server),
///     store: FileClockCalibrationStore(fileURL: directory.appending(path: "clock.json")))
/// ```
///
/// A ``LockstepClient`` keeps its clock's calibration in `clock.json` of its store directory.
public struct FileClockCalibrationStore: ClockCalibrationStore {
    /// The file; its directory must exist.
    public let fileURL: URL

    /// A store in the file at `fileURL`, which need not exist yet.
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// The calibration in the file, or `nil` when there is no file. Throws what reading or
    /// decoding threw (the clock then starts afresh).
    public func load() throws -> ClockCalibration? {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return nil }
        return try JSONDecoder().decode(ClockCalibration.self, from: Data(contentsOf: fileURL))
    }

    /// Replaces the file's content, atomically.
    public func save(_ calibration: ClockCalibration) throws {
        // Atomic, so a crash mid-write leaves the previous calibration rather than half of one.
        try JSONEncoder().encode(calibration).write(to: fileURL, options: .atomic)
    }
}
