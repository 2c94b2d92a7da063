import Foundation
import LockstepCore
import Testing

@Suite struct ClockCalibrationTests {
    private let history = ClockHistory(samples: [
        ClockSample(t1: 1, t2: 5, t3: 6, t4: 9, opensConnection: true), ClockSample(t1: 10, t2: 12, t3: 13, t4: 14),
    ])

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

    /// Calibrations saved before samples said whether they opened their connection still load.
    @Test func readsSamplesSavedBeforeTheyKnewTheirConnection() throws {
        let saved = #"{"t1": 1, "t2": 5, "t3": 6, "t4": 9, "serverResolution": 0}"#
        let sample = try JSONDecoder().decode(ClockSample.self, from: Data(saved.utf8))
        #expect(sample == ClockSample(t1: 1, t2: 5, t3: 6, t4: 9))
    }

    /// Rounds saved before estimates and drifts had an uncertainty still load, the bound standing in.
    @Test func readsRoundsSavedBeforeTheyHadAnUncertainty() throws {
        let saved = #"{"anchor": 5, "offset": 7, "errorBound": 300, "drift": {"rate": 1e-6, "rateBound": 4e-5}}"#
        let round = try JSONDecoder().decode(ClockEstimate.self, from: Data(saved.utf8))
        #expect(round == ClockEstimate(anchor: 5, offset: 7, errorBound: 300, drift: ClockDrift(rate: 1e-6, rateBound: 4e-5)))
        #expect(round.uncertainty == 300)
        #expect(round.drift.rateUncertainty == 4e-5)
    }
}
