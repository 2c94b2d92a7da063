import Foundation
import LockstepCore
import Testing

@Suite struct ClockCalibrationTests {
    private let history = ClockHistory(samples: [ClockSample(t1: 1, t2: 5, t3: 6, t4: 9)])

    @Test func theHistoryBelongsToItsBootOnly() {
        let calibration = ClockCalibration(bootIdentity: "boot-a", history: history)
        #expect(calibration.history(forBoot: "boot-a") == history)
        #expect(calibration.history(forBoot: "boot-b") == nil)
    }

    @Test func survivesJSON() throws {
        let calibration = ClockCalibration(bootIdentity: "boot-a", history: history)
        let decoded = try JSONDecoder().decode(ClockCalibration.self, from: JSONEncoder().encode(calibration))
        #expect(decoded == calibration)
    }
}
