@testable import LockstepClient
import Testing

@Suite struct HTTPDateTests {
    /// 1994-11-06T08:49:37Z, RFC 9110's example.
    private let example: Int64 = 784_111_777

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
    ])
    func readsAllThreeForms(_ text: String) {
        #expect(HTTPDate.secondsSinceEpoch(text) == example)
    }

    @Test func readsLeapDaysAndTheEpoch() {
        #expect(HTTPDate.secondsSinceEpoch("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.secondsSinceEpoch("Thu, 29 Feb 2024 12:00:00 GMT") == 1_709_208_000)
        #expect(HTTPDate.secondsSinceEpoch("Sun, 01 Jun 2025 07:00:00 GMT") == 1_748_761_200)
    }

    @Test(arguments: [
        "", "yesterday", "Sun, 06 Nov 1994", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
    ])
    func rejectsWhatIsNotADate(_ text: String) {
        #expect(HTTPDate.secondsSinceEpoch(text) == nil)
    }
}
