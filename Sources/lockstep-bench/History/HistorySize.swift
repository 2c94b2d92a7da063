import ArgumentParser
import CommandLineSupport
import Foundation
import GRDB
import LockstepCore
import LockstepPostgres
import LockstepServer
import PostgresNIO

/// What keeping history costs: a 4 KB note edited thousands of times by small edits.
struct HistorySize: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "size",
        abstract: "Bytes on disk for an object's history, the time to read an old version, the time to rebase a change 1,000 versions old.",
        discussion: """
            Writes one note of about 4 KB and edits it --edits times by small text edits, through the \
            store's group commit (groups of 100), for each snapshot interval given. Reports the bytes \
            its history takes on disk (SQLite: the database file after a checkpoint, less an empty \
            store's; PostgreSQL: the changes and snapshots tables with their indexes), against the \
            bytes full copies of every version would take; the time to read --reads random old \
            versions; and the time to commit --rebases changes each made against the version \
            --rebase-age versions before the latest (a group of one: the flush is included).
            """)

    @Option(help: "Edits of the note.")
    var edits = 10_000

    @Option(name: .customLong("snapshot-intervals"), parsing: .upToNextOption, help: "Snapshot intervals to compare.")
    var snapshotIntervals: [Int] = [32]

    @Option(help: "Old versions read.")
    var reads = 1_000

    @Option(help: "Changes rebased.")
    var rebases = 20

    @Option(name: .customLong("rebase-age"), help: "How many versions old each rebased change's base is.")
    var rebaseAge = 1_000

    @Option(name: .customLong("database-url"), help: "A PostgreSQL database to measure too (env LOCKSTEP_DATABASE_URL).")
    var databaseURL: String?

    func validate() throws {
        guard edits > rebaseAge, reads > 0, rebases > 0, snapshotIntervals.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--edits must exceed --rebase-age; counts and intervals must be positive")
        }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        say("A 4 KB note edited \(edits) times; \(reads) random old versions read; \(rebases) changes \(rebaseAge) versions old rebased.")
        say(Self.row("store", "interval", "history", "full copies", "read p50", "read p99", "rebase p50", "rebase p99"))
        var factories = [("SQLite", StoreFactory.sqlite(directory: directory))]
        if let url = databaseURL ?? ProcessInfo.processInfo.environment["LOCKSTEP_DATABASE_URL"] {
            factories.append(("PostgreSQL", try StoreFactory.postgres(url: url)))
        }
        for (name, factory) in factories {
            for interval in snapshotIntervals {
                let fresh = try await factory.fresh()
                let figures = try await measure(fresh, interval: interval)
                await fresh.close()
                say(Self.row(
                    name, String(interval), Self.megabytes(figures.historyBytes), Self.megabytes(figures.fullCopyBytes),
                    Measure.format(seconds: figures.reads.p50), Measure.format(seconds: figures.reads.p99),
                    Measure.format(seconds: figures.rebases.p50), Measure.format(seconds: figures.rebases.p99)))
            }
        }
    }

    private struct Figures {
        var historyBytes: Int64
        var fullCopyBytes: Int64
        var reads: (p50: Double, p99: Double)
        var rebases: (p50: Double, p99: Double)
    }

    private func measure(_ fresh: StoreFactory.Fresh, interval: Int) async throws -> Figures {
        var limits = Limits()
        limits.snapshotInterval = interval
        let store = fresh.store
        let scope = BucketScope(appID: try await fresh.app(), owner: .user("writer"), bucket: "notes")
        let emptyBytes = try await historyBytes(fresh)
        var random = SystemRandomNumberGenerator()
        var text = Self.words(count: 700, using: &random)  // about 4 KB
        var fullCopyBytes: Int64 = 0
        var version = 0
        var pending: [ChangeRequest] = []
        func commit() async throws {
            let outcomes = try await store.commit(ChangeGroup(requests: pending, time: 0, limits: limits))
            for case .rejected(let rejection) in outcomes { throw CommandError("an edit was refused: \(rejection)") }
            pending = []
        }
        for edit in 0...edits {
            let before = text
            if edit > 0 { Self.smallEdit(&text, using: &random) }
            let data: JSONObject = ["title": "A long note", "text": .string(text)]
            fullCopyBytes += Int64(JSONValue.object(data).jsonBytes.count)
            let diff = edit == 0 ? ObjectDiff(from: [:], to: data) : ObjectDiff(from: ["title": "A long note", "text": .string(before)], to: data)
            pending.append(ChangeRequest(scope: scope, change: IncomingChange(
                key: "note", changeID: "e\(edit)", clientID: "writer", operation: .modify(diff: diff, fullData: nil),
                sourceVersion: edit == 0 ? nil : version, editTime: Int64(edit))))
            version += 1
            if pending.count == 100 { try await commit() }
        }
        if !pending.isEmpty { try await commit() }
        let historyBytes = try await historyBytes(fresh) - emptyBytes

        var readTimes: [Double] = []
        for _ in 0..<reads {
            let old = Int.random(in: 1..<version, using: &random)
            let started = ContinuousClock.now
            guard try await store.objectData(scope, key: "note", version: old) != nil else { throw CommandError("version \(old) was not retained") }
            readTimes.append((ContinuousClock.now - started).seconds)
        }

        var rebaseTimes: [Double] = []
        for number in 0..<rebases {
            let base = version - rebaseAge
            guard let old = try await store.objectData(scope, key: "note", version: base), case .string(let oldText)? = old["text"] else {
                throw CommandError("version \(base) was not retained")
            }
            var edited = oldText
            Self.smallEdit(&edited, using: &random)
            let change = IncomingChange(
                key: "note", changeID: "r\(number)", clientID: "offline",
                operation: .modify(diff: ObjectDiff(from: old, to: ["title": "A long note", "text": .string(edited)]), fullData: nil),
                sourceVersion: base, editTime: Int64(edits + number))
            let started = ContinuousClock.now
            let outcome = try await store.commit(ChangeGroup(requests: [ChangeRequest(scope: scope, change: change)], time: 0, limits: limits))
            rebaseTimes.append((ContinuousClock.now - started).seconds)
            switch outcome.first {
            case .committed?: version += 1
            case .rejected(let rejection)? where rejection.reason == .emptyChange: break  // the edit had been made since
            default: throw CommandError("a rebased change was refused: \(outcome)")
            }
        }
        readTimes.sort()
        rebaseTimes.sort()
        return Figures(
            historyBytes: historyBytes, fullCopyBytes: fullCopyBytes,
            reads: (quantile(0.5, of: readTimes), quantile(0.99, of: readTimes)),
            rebases: (quantile(0.5, of: rebaseTimes), quantile(0.99, of: rebaseTimes)))
    }

    /// What the store's history tables take on disk now.
    private func historyBytes(_ fresh: StoreFactory.Fresh) async throws -> Int64 {
        switch fresh.location {
        case .sqlite(let directory):
            let path = directory + "/lockstep.sqlite"
            let queue = try DatabaseQueue(path: path)
            try await queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try queue.close()
            return (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        case .postgres:
            guard let store = fresh.store as? PostgresStore else { return 0 }
            return try await store.tableBytes(["changes", "snapshots"])
        }
    }

    private static let vocabulary = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "sync", "note", "edit", "phone"]

    private static func words(count: Int, using random: inout SystemRandomNumberGenerator) -> String {
        (0..<count).map { _ in vocabulary.randomElement(using: &random)! }.joined(separator: " ")
    }

    /// Replaces one word somewhere in the text by another.
    private static func smallEdit(_ text: inout String, using random: inout SystemRandomNumberGenerator) {
        var words = text.split(separator: " ").map(String.init)
        let index = Int.random(in: 0..<words.count, using: &random)
        words[index] = vocabulary.filter { $0 != words[index] }.randomElement(using: &random)!
        text = words.joined(separator: " ")
    }

    private static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.2f MB", Double(bytes) / 1e6)
    }

    static func row(_ cells: String...) -> String {
        zip(cells, [11, 9, 10, 12, 10, 10, 11, 11]).map { cell, width in cell.padding(toLength: max(width, cell.count), withPad: " ", startingAt: 0) }
            .joined(separator: " ")
    }
}
