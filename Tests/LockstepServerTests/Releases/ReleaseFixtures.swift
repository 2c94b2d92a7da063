import Foundation
import LockstepCore
import LockstepServer
import Synchronization

/// A clock the test sets by hand, in server nanoseconds.
final class ManualClock: Sendable {
    private let nanoseconds: Mutex<Int64>

    init(milliseconds: Int64) {
        nanoseconds = Mutex(milliseconds * 1_000_000)
    }

    func now() -> Int64 { nanoseconds.withLock { $0 } }

    func set(milliseconds: Int64) {
        nanoseconds.withLock { $0 = milliseconds * 1_000_000 }
    }
}

enum ReleaseFixtures {
    static let seedText = "server-test-seed-0123456789abcdef0123456789"
    /// 2025-10-25T13:20:00Z, a whole minute.
    static let minute: Int64 = 1_761_398_400_000

    static let configurationText = """
        {
          "stores": [
            { "id": "main", "slots": 12 },
            { "id": "quick", "slots": 3, "shelfLife": { "min": 1, "max": 2 } }
          ],
          "items": [
            { "id": "sword", "weight": 5, "data": { "price": 100 } },
            { "id": "shield", "weight": 3 },
            { "id": "potion", "weight": 2, "data": { "price": 5, "name": "Potion of Haste" } }
          ]
        }
        """

    static func configuration() throws -> ReleaseConfiguration {
        try ReleaseConfiguration(parsing: Array(configurationText.utf8), fileName: "store.json")
    }

    static func service(now: @escaping @Sendable () -> Int64) throws -> ReleaseService {
        ReleaseService(configuration: try configuration(), seed: try ReleaseSeed(text: seedText), now: now)
    }
}
