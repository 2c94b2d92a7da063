import Foundation
import LockstepCore
import Testing

@Suite struct ServerTimeTests {
    @Test func convertsToDateAndBounds() {
        let time = ServerTime(nanosecondsSinceEpoch: 1_748_761_200_123_456_789, errorBound: .microseconds(12_345))
        #expect(abs(time.date.timeIntervalSince1970 - 1_748_761_200.123_456_789) < 1e-6)
        #expect(time.earliest == 1_748_761_200_111_111_789)
        #expect(time.latest == 1_748_761_200_135_801_789)
    }

    @Test func describesItselfWithTheBound() {
        let time = ServerTime(nanosecondsSinceEpoch: 1_748_761_200_123_000_000, errorBound: .microseconds(12_345))
        #expect(time.description == "2025-06-01T07:00:00.123Z ± 12.3 ms")
    }

    @Test func negativeTimesConvertToo() {
        let time = ServerTime(nanosecondsSinceEpoch: -1_500_000_000, errorBound: .zero)
        #expect(time.date.timeIntervalSince1970 == -1.5)
        #expect(time.description == "1969-12-31T23:59:58.500Z ± 0.0 ms")
    }

    @Test func describesATighterUncertaintyBesideTheBound() {
        let time = ServerTime(nanosecondsSinceEpoch: 1_748_761_200_123_000_000, errorBound: .microseconds(12_345), uncertainty: .microseconds(1_260))
        #expect(time.description == "2025-06-01T07:00:00.123Z ± 1.3 ms (bound 12.3 ms)")
    }

    @Test func theUncertaintyIsNeverMoreThanTheBound() {
        let time = ServerTime(nanosecondsSinceEpoch: 0, errorBound: .milliseconds(2), uncertainty: .milliseconds(5))
        #expect(time.uncertainty == .milliseconds(2))
        #expect(ServerTime(nanosecondsSinceEpoch: 0, errorBound: .milliseconds(2)).uncertainty == .milliseconds(2))
    }

    /// Times saved before they had an uncertainty still load, the bound standing in.
    @Test func readsTimesSavedWithoutAnUncertainty() throws {
        let saved = try JSONEncoder().encode(ServerTime(nanosecondsSinceEpoch: 42, errorBound: .milliseconds(3)))
        var object = try #require(JSONSerialization.jsonObject(with: saved) as? [String: Any])
        object["uncertainty"] = nil
        let decoded = try JSONDecoder().decode(ServerTime.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(decoded == ServerTime(nanosecondsSinceEpoch: 42, errorBound: .milliseconds(3)))
    }
}
