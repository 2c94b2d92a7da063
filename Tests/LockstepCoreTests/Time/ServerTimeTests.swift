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
}
