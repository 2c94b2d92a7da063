import ArgumentParser
import Foundation
import LockstepCore
import LockstepPostgres
import LockstepServer

/// Commits per second of each store, measured in one run so the figures compare.
struct BenchStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Commits per second of the SQLite store, and of the PostgreSQL store when given a database.",
        discussion: """
            Each writer owns a bucket (as each user owns theirs) and commits changes to a few objects \
            in it, one after another, as the bucket service would. SQLite runs in a temporary directory; \
            PostgreSQL in a new schema (bench_…) of the given database, left behind for inspection: \
            point it at a scratch database.
            """)

    @Option(help: "Commits per store.")
    var commits = 2000

    @Option(help: "Writers committing at the same time.")
    var writers = 8

    @Option(name: .customLong("database-url"), help: "A PostgreSQL database to measure too (env LOCKSTEP_DATABASE_URL).")
    var databaseURL: String?

    func validate() throws {
        guard commits > 0, writers > 0 else { throw ValidationError("--commits and --writers must be positive") }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        say("\(commits) commits by \(writers) writers, each in its own bucket of one app:")
        let sqlite = try SQLiteStore(path: directory.appendingPathComponent("lockstep.sqlite").path)
        say(try await measure(sqlite, name: "SQLite (WAL, synchronous=FULL)"))

        guard let url = databaseURL ?? ProcessInfo.processInfo.environment["LOCKSTEP_DATABASE_URL"] else {
            say("PostgreSQL: not measured (give --database-url)")
            return
        }
        var configuration = try PostgresStore.Configuration(url: url)
        configuration.schema = "bench_" + UUID().uuidString.prefix(8).lowercased()
        configuration.maximumConnections = max(configuration.maximumConnections, writers)
        // A schema of its own, dropped after: any key will do.
        let postgres = try await PostgresStore.connect(configuration, serverKey: .random())
        do {
            say(try await measure(postgres, name: "PostgreSQL (\(configuration.redactedDescription))"))
        } catch {
            await postgres.shutdown()
            throw error
        }
        await postgres.shutdown()
    }

    private func measure(_ store: any SyncStore, name: String) async throws -> String {
        let app = "bench-" + UUID().uuidString.prefix(8).lowercased()
        try await store.insertApp(AppRecord(id: app, name: "bench", apiKeyHash: "-", adminTokenHash: "-", createdAt: 0))
        let writers = writers
        let share = commits / writers
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                let count = share + (writer < commits % writers ? 1 : 0)
                group.addTask {
                    let scope = BucketScope(appID: app, owner: .user("writer-\(writer)"), bucket: "bench")
                    for index in 0..<count { try await Self.commit(store, scope, key: "object-\(index % 10)", index: index) }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = Double(commits) / seconds
        return "  \(name): \(Int(rate.rounded())) commits/s (\(String(format: "%.2f", seconds)) s, "
            + "\(String(format: "%.2f", seconds * 1000 * Double(writers) / Double(commits))) ms per commit per writer)"
    }

    /// One change as the bucket service commits it: read the object, write the next version.
    private static func commit(_ store: any SyncStore, _ scope: BucketScope, key: String, index: Int) async throws {
        let current = try await store.object(scope, key: key)
        let version = (current?.version ?? 0) + 1
        let data: JSONObject = ["title": .string("item \(index)"), "count": .integer(Int64(index))]
        let stamp = EditStamp(time: Int64(index), clientID: "bench")
        let change = ChangeRecord(
            sequence: 0, key: key, operation: .modify, sourceVersion: current?.version, endVersion: version,
            diff: ObjectDiff(from: current?.data ?? [:], to: data), clientID: "bench", changeID: UUID().uuidString,
            editTime: stamp.time)
        let object = StoredObject(key: key, version: version, data: data, isDeleted: false, memberStamps: data.mapValues { _ in stamp }, sequence: 0)
        guard case .committed = try await store.commit(
            scope, ObjectWrite(expectedVersion: current?.version ?? 0, object: object, change: change, retainedVersions: 10))
        else { throw ValidationError("a bench commit was refused: each writer owns its bucket, so nothing should conflict") }
    }
}
