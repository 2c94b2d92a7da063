import GRDB
@testable import LockstepClient
import Synchronization

/// Makes a client's store fail part-way through any transaction that writes the ghost of one
/// key, as a disk that fails mid-write would: SQLite aborts the statement and the client's
/// transaction rolls back whole. Counts the attempts, which a rollback does not undo.
final class FailingGhostWrites: Sendable {
    private let attemptCount = Mutex(0)

    var attempts: Int { attemptCount.withLock { $0 } }

    private init() {}

    /// Installs the failure on the client's writer connection (a temporary trigger: the file's
    /// schema does not change).
    static func install(on client: LockstepClient, key: String) async throws -> FailingGhostWrites {
        let failing = FailingGhostWrites()
        try await client.replica.database.writeWithoutTransaction { db in
            db.add(function: DatabaseFunction("lockstep_test_attempt", argumentCount: 0, pure: false) { _ in
                failing.attemptCount.withLock { $0 += 1 }
                return true
            })
            try db.execute(sql: """
                CREATE TEMP TRIGGER lockstep_test_failing_ghost BEFORE INSERT ON main.ghosts
                WHEN NEW.key = '\(key)' AND lockstep_test_attempt()
                BEGIN SELECT RAISE(ABORT, 'the disk failed'); END
                """)
        }
        return failing
    }

    /// The disk works again.
    static func remove(from client: LockstepClient) async throws {
        try await client.replica.database.writeWithoutTransaction { db in
            try db.execute(sql: "DROP TRIGGER lockstep_test_failing_ghost")
        }
    }
}
