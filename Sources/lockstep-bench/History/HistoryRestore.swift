import ArgumentParser
import AsyncHTTPClient
import ChildProcesses
import CommandLineSupport
import Foundation
import LockstepCore
import LockstepServer
import Logging
import NIOCore

/// Restoring a bucket to a moment: a job's items, every one overwritten by a bad build an hour
/// ago, put back through a real server.
struct HistoryRestore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "The time to restore a bucket of --objects objects to a moment, through `lockstep serve`.",
        discussion: """
            Writes a shared bucket of --objects objects (about 200 bytes each) into a fresh store two hours \
            back, overwrites every one of them an hour back (a bad build), and, half an hour back, makes 5 % \
            more objects and removes 1 %. Then starts `lockstep serve` on the store and restores the bucket \
            to a moment before the overwrite with the admin token: first a dry run, then the restore (every \
            object put back, the new ones removed, the removed ones left removed, as one group committed \
            together). Reports the wall time of each request and the server's CPU time for the restore, \
            for --rounds fresh stores, and their medians; checks the bucket afterwards.
            """)

    @Option(help: "Objects in the bucket at the moment restored to.") var objects = 10_000
    @Option(help: "Rounds, each on a fresh store; the median is reported.") var rounds = 3
    @Option(name: .customLong("database-url"), help: "A PostgreSQL database to measure too (env LOCKSTEP_DATABASE_URL).")
    var databaseURL: String?

    func validate() throws {
        guard objects >= 100, rounds > 0 else { throw ValidationError("--objects must be at least 100 and --rounds positive") }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var factories = [("SQLite", StoreFactory.sqlite(directory: directory))]
        if let url = databaseURL ?? ProcessInfo.processInfo.environment["LOCKSTEP_DATABASE_URL"] {
            factories.append(("PostgreSQL", try StoreFactory.postgres(url: url)))
        }
        say("A shared bucket of \(objects) objects, each overwritten since, restored to a moment before (dry run, then restore).")
        say(Self.row("store", "round", "changes", "dry run", "restore", "server CPU"))
        for (name, factory) in factories {
            var restores: [Double] = []
            var dryRuns: [Double] = []
            var cpus: [Double] = []
            for round in 1...rounds {
                let figures = try await measure(try await factory.fresh())
                restores.append(figures.restore)
                dryRuns.append(figures.dryRun)
                cpus.append(figures.serverCPU)
                say(Self.row(
                    name, String(round), String(figures.changes), Measure.format(seconds: figures.dryRun), Measure.format(seconds: figures.restore),
                    Measure.format(seconds: figures.serverCPU)))
            }
            say(Self.row(
                name, "median", "", Measure.format(seconds: dryRuns.sorted()[rounds / 2]), Measure.format(seconds: restores.sorted()[rounds / 2]),
                Measure.format(seconds: cpus.sorted()[rounds / 2])))
        }
    }

    private struct Figures {
        var changes: Int
        var dryRun: Double
        var restore: Double
        var serverCPU: Double
    }

    private func measure(_ fresh: StoreFactory.Fresh) async throws -> Figures {
        var logger = Logger(label: "lockstep-bench")
        logger.logLevel = .error
        let services = LockstepServices(store: fresh.store, limits: Limits(), clock: ServerClockSource(), logger: logger)
        let app = try await services.accounts.createApp(name: "bench")
        try await fresh.store.setBucketOptions(appID: app.appID, bucket: "items", options: ["shared": true])
        let scope = BucketScope(appID: app.appID, owner: .shared, bucket: "items")
        let hour: Int64 = 3_600_000_000_000
        let now = ServerClockSource().now()
        let moment = now - 2 * hour + hour / 6

        // Two hours back, the bucket; an hour back, every object overwritten; half an hour
        // back, 5 % more objects and 1 % removed.
        try await commit((0..<objects).map { index in (Self.key(index), .modify(diff: nil, fullData: Self.item(index, bad: false))) }, scope, fresh, at: now - 2 * hour)
        try await commit((0..<objects).map { index in (Self.key(index), .modify(diff: nil, fullData: Self.item(index, bad: true))) }, scope, fresh, at: now - hour)
        let added = objects / 20
        let removed = objects / 100
        try await commit(
            (objects..<objects + added).map { index in (Self.key(index), .modify(diff: nil, fullData: Self.item(index, bad: true))) }
                + (0..<removed).map { index in (Self.key(index), .remove) },
            scope, fresh, at: now - hour / 2)
        await fresh.close()

        let port = try BenchProcesses.freePort()
        let server = try ChildProcess.spawn(
            LockstepBinary.path,
            arguments: ["serve", "--host", "127.0.0.1", "--port", String(port), "--log-level", "error", "--http-requests-per-second", "0"]
                + fresh.serveArguments,
            output: .errorsOnly)
        defer {
            server.send(SIGINT)
            _ = server.waitUntilExit()
        }
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { Task { try? await http.shutdown() } }
        try await BenchProcesses.waitUntilUp("http://127.0.0.1:\(port)/health", client: http)

        func restore(dryRun: Bool) async throws -> (JSONValue, Double) {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/1/\(app.appID)/items/restore")
            request.method = .POST
            request.headers.add(name: "X-Simperium-Token", value: app.adminToken)
            request.body = .bytes(ByteBuffer(bytes: JSONValue.object(["at": .integer(moment / 1_000_000), "dryRun": .bool(dryRun)]).jsonBytes))
            let started = ContinuousClock.now
            let response = try await http.execute(request, timeout: .seconds(600))
            let body = try await response.body.collect(upTo: 64 * 1024 * 1024)
            let seconds = (ContinuousClock.now - started).seconds
            guard response.status == .ok, let answer = try? JSONValue(parsing: Array(body.readableBytesView)) else {
                throw CommandError("the restore was refused (\(response.status)): \(String(buffer: body).prefix(300))")
            }
            return (answer, seconds)
        }
        let (planned, dryRun) = try await restore(dryRun: true)
        let cpu = CPUTime(including: [server.pid])
        let (done, seconds) = try await restore(dryRun: false)
        let serverCPU = cpu.elapsed()
        let expected = Int64(objects - removed + added)
        guard planned["changes"]?.integerValue == expected, done["changes"]?.integerValue == expected,
            done["stayRemoved"]?.arrayValue?.count == removed, done["refused"] == []
        else { throw CommandError("the restore did not do what was planned: \(planned) then \(done)") }

        var check = HTTPClientRequest(url: "http://127.0.0.1:\(port)/1/\(app.appID)/items/i/\(Self.key(objects - 1))")
        check.headers.add(name: "X-Simperium-Token", value: app.adminToken)
        let object = try await http.execute(check, timeout: .seconds(30))
        let body = try await object.body.collect(upTo: 1 << 20)
        guard (try? JSONValue(parsing: Array(body.readableBytesView))) == .object(Self.item(objects - 1, bad: false)) else {
            throw CommandError("an object was not put back: \(String(buffer: body))")
        }
        return Figures(changes: Int(expected), dryRun: dryRun, restore: seconds, serverCPU: serverCPU)
    }

    /// Commits `changes` to `scope` in groups of 1,000, as of server time `time`.
    private func commit(_ changes: [(key: String, operation: IncomingChange.Operation)], _ scope: BucketScope, _ fresh: StoreFactory.Fresh, at time: Int64)
        async throws
    {
        var start = 0
        while start < changes.count {
            let slice = changes[start..<min(start + 1_000, changes.count)]
            let requests = slice.map { change in
                ChangeRequest(scope: scope, change: IncomingChange(
                    key: change.key, changeID: UUID().uuidString, clientID: "phone-1", operation: change.operation, sourceVersion: nil,
                    editTime: time), author: .user("5f2c0d9e4b7a41c8a3e6b1d2c9f0e7a4"))
            }
            let outcomes = try await fresh.store.commit(ChangeGroup(requests: Array(requests), time: time, limits: Limits()))
            for case .rejected(let rejection) in outcomes { throw CommandError("a change was refused: \(rejection)") }
            start += slice.count
        }
    }

    private static func key(_ index: Int) -> String { "item-\(index)" }

    /// An inventory item of about 200 bytes; `bad` as the bad build left it.
    private static func item(_ index: Int, bad: Bool) -> JSONObject {
        [
            "name": .string("Item \(index)"), "room": bad ? "?" : .string(["lounge", "kitchen", "study", "garage"][index % 4]),
            "quantity": .integer(bad ? 0 : Int64(1 + index % 5)), "fragile": .bool(index % 3 == 0),
            "notes": .string("Box \(index / 12), wrapped in two layers; the customer wants it in the same room at the new address."),
        ]
    }

    static func row(_ cells: String...) -> String {
        zip(cells, [11, 7, 9, 10, 10, 11]).map { cell, width in cell.padding(toLength: max(width, cell.count), withPad: " ", startingAt: 0) }
            .joined(separator: " ")
    }
}
