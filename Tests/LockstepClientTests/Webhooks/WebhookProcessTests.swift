import Foundation
import LockstepCore
import Logging
import PostgresNIO
import Synchronization
import Testing
@testable import lockstep

/// Webhooks between real processes: `lockstep serve`, the `lockstep webhooks` commands, and a
/// receiver in Python that verifies every request with the `standardwebhooks` package. The
/// server is killed with SIGKILL while deliveries are pending; a receiver fails for a while;
/// two PostgreSQL nodes share an endpoint and one dies holding its lease.
@Suite("Webhooks: real processes")
struct WebhookProcessTests {
    /// Retries a few times a second, so that a test does not wait minutes for a backoff.
    static let quickRetries = [
        "--webhooks-allow-private", "--webhook-retry-base-seconds", "0.2", "--webhook-retry-max-seconds", "0.5", "--webhook-poll-seconds",
        "0.2",
    ]

    /// Runs `lockstep webhooks …` to its end; its output lines, or the transcript when it failed.
    static func webhooks(_ server: ServerProcess, app: String, admin: String, _ arguments: [String]) async throws -> [String] {
        let tool = try ToolProcess.launch(
            "lockstep", name: "webhooks", arguments: ["webhooks", "--url", server.baseURL, "--app", app, "--token", admin] + arguments)
        guard let status = await tool.exitStatus(within: .seconds(60)) else {
            tool.kill()
            throw WebhookProcessError.command(tool.transcript)
        }
        let lines = tool.lines(startingWith: "")
        guard status == 0 else { throw WebhookProcessError.command(tool.transcript) }
        return lines
    }

    /// Adds an endpoint with the CLI; its id and secret.
    static func add(_ server: ServerProcess, app: String, admin: String, url: String, events: String = "change") async throws -> (id: String, secret: String) {
        let lines = try await webhooks(server, app: app, admin: admin, ["add", url, "--events", events])
        guard let id = lines.first?.split(separator: " ").first.map(String.init), id.hasPrefix("ep_"),
            let secret = lines.first(where: { $0.hasPrefix("  secret:") })?.split(separator: " ").last.map(String.init)
        else { throw WebhookProcessError.command(lines.joined(separator: "\n")) }
        return (id, secret)
    }

    /// Writes objects `<prefix><n>` one after the other, until `count` or the first failure
    /// (the server killed); answers the keys acknowledged.
    static func write(_ server: ServerProcess, app: String, token: String, prefix: String, count: Int) async -> [String] {
        var acknowledged: [String] = []
        for index in 0..<count {
            let key = "\(prefix)\(index)"
            guard let answer = try? await server.post("/1/\(app)/jobs/i/\(key)", token: token, body: ["n": .integer(Int64(index))]),
                answer.status == 200
            else { break }
            acknowledged.append(key)
        }
        return acknowledged
    }

    /// What every test checks of what the receiver took: each request verified by the library
    /// (none refused), events in commit order across deliveries, each delivery's events alike
    /// every time it came.
    static func expectVerifiedAndInOrder(_ receiver: PythonReceiver, sourceLocation: SourceLocation = #_sourceLocation) {
        let answered = receiver.answered
        #expect(!answered.isEmpty, sourceLocation: sourceLocation)
        let refused = answered.filter { $0["error"] != nil }
        #expect(refused.isEmpty, "requests the library did not verify: \(refused)", sourceLocation: sourceLocation)
        // Each delivery carried the same events every time it came.
        var bodies: [String: JSONValue] = [:]
        for record in answered {
            guard let id = record["id"]?.stringValue, let events = record["events"] else { continue }
            if let earlier = bodies[id] { #expect(earlier == events, "delivery \(id) came with other events", sourceLocation: sourceLocation) }
            bodies[id] = events
        }
        let positions = receiver.accepted.flatMap { $0["events"]?.arrayValue ?? [] }.compactMap { $0.stringValue.flatMap(EventPosition.init) }
        #expect(positions == positions.sorted() && Set(positions.map { "\($0.sequence).\($0.step)" }).count == positions.count,
            "events out of commit order, or one accepted in two deliveries", sourceLocation: sourceLocation)
    }

    @Test(.timeLimit(.minutes(3)), arguments: CrashStore.allCases)
    func everyCommittedChangeIsDeliveredAfterSIGKILL(_ kind: CrashStore) async throws {
        try PythonReceiver.require()
        let (storeArguments, remove) = try kind.place()
        defer { Task { await remove() } }
        let receiver = try await PythonReceiver.start()
        defer { receiver.stop() }
        try await receiver.control(["status": 500])
        var server = try await ServerProcess.start(storeArguments, options: Self.quickRetries)
        defer { server.kill() }
        let (app, admin) = try await server.credentials()
        let token = try await server.issueToken(app: app, admin: admin, username: "mover")
        let endpoint = try await Self.add(server, app: app, admin: admin, url: receiver.url)
        try await receiver.control(["secrets": [.string(endpoint.secret)]])

        // Three writers; the server is killed under them once the receiver has refused some
        // deliveries (so that they are pending, retried, when it dies).
        let writers = (0..<3).map { writer in
            Task { [server] in await Self.write(server, app: app, token: token, prefix: "w\(writer)-", count: 400) }
        }
        #expect(try await receiver.wait(for: .seconds(30)) { receiver.answered.count >= 3 })
        server.kill()
        var acknowledged: [String] = []
        for writer in writers { acknowledged += await writer.value }
        #expect(acknowledged.count >= 3 && acknowledged.count < 1200, "the kill came among the writes (\(acknowledged.count) acknowledged)")
        #expect(receiver.accepted.isEmpty, "nothing was delivered before the kill")

        server = try await ServerProcess.start(storeArguments, port: server.port, options: Self.quickRetries)
        try await receiver.control(["status": 200])
        let wanted = Set(acknowledged)
        let complete = try await receiver.wait(for: .seconds(60)) {
            wanted.isSubset(of: Set(receiver.acceptedEvents.compactMap { $0.data["id"]?.stringValue }))
        }
        let delivered = Set(receiver.acceptedEvents.compactMap { $0.data["id"]?.stringValue })
        #expect(complete, "\(wanted.subtracting(delivered).count) of \(wanted.count) acknowledged changes were not delivered")
        Self.expectVerifiedAndInOrder(receiver)
        // Each writer's changes in the order it made them.
        for writer in 0..<3 {
            let keys = receiver.acceptedEvents.compactMap { $0.data["id"]?.stringValue }.filter { $0.hasPrefix("w\(writer)-") }
            let numbers = keys.compactMap { Int($0.dropFirst("w0-".count)) }
            #expect(numbers == numbers.sorted(), "writer \(writer)'s changes out of order")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aReceiverThatFailsForAWhileGetsEverythingInOrder() async throws {
        try PythonReceiver.require()
        let (storeArguments, remove) = try CrashStore.sqlite.place()
        defer { Task { await remove() } }
        let receiver = try await PythonReceiver.start()
        defer { receiver.stop() }
        try await receiver.control(["status": 500])
        let server = try await ServerProcess.start(storeArguments, options: Self.quickRetries)
        defer { server.kill() }
        let (app, admin) = try await server.credentials()
        let token = try await server.issueToken(app: app, admin: admin, username: "mover")
        let endpoint = try await Self.add(server, app: app, admin: admin, url: receiver.url)
        try await receiver.control(["secrets": [.string(endpoint.secret)]])

        // Changes keep coming while the receiver fails (five seconds), and after it recovers.
        let writing = Task { [server] in
            var written: [String] = []
            for round in 0..<8 {
                written += await Self.write(server, app: app, token: token, prefix: "r\(round)-", count: 25)
                try? await Task.sleep(for: .milliseconds(1000))
            }
            return written
        }
        try await Task.sleep(for: .seconds(5))
        let failed = receiver.answered.count
        try await receiver.control(["status": 200])
        let written = await writing.value
        #expect(written.count == 200)
        let complete = try await receiver.wait(for: .seconds(60)) { receiver.acceptedEvents.count >= written.count }
        #expect(complete, "\(receiver.acceptedEvents.count) of \(written.count) events delivered")
        #expect(receiver.acceptedEvents.compactMap { $0.data["id"]?.stringValue } == written, "every change, once, in the order written")
        #expect(failed >= 5, "the receiver refused deliveries while it failed (\(failed))")
        Self.expectVerifiedAndInOrder(receiver)
        // The delivery refused first went on with its id until it was taken.
        let first = try #require(receiver.answered.first?["id"]?.stringValue)
        #expect(receiver.answered.filter { $0["id"]?.stringValue == first }.count > 1)
        #expect(receiver.accepted.first?["id"]?.stringValue == first)
    }

    @Test(.timeLimit(.minutes(3)))
    func twoPostgreSQLNodesShareDeliveriesAndAKilledNodesLeasePassesOn() async throws {
        try PythonReceiver.require()
        let (storeArguments, remove) = try CrashStore.postgres.place()
        defer { Task { await remove() } }
        let receiver = try await PythonReceiver.start()
        defer { receiver.stop() }
        // Every request refused, after a second: the first delivery stays pending, retried
        // with its id by the node that holds the endpoint, and one is in flight when it dies.
        try await receiver.control(["status": 500, "delay": 1])
        let leaseSeconds = 6
        let options = Self.quickRetries + ["--webhook-timeout-seconds", "2", "--webhook-lease-seconds", String(leaseSeconds)]
        let first = try await ServerProcess.start(storeArguments, options: options)
        defer { first.kill() }
        let (app, admin) = try await first.credentials()
        let token = try await first.issueToken(app: app, admin: admin, username: "mover")
        let endpoint = try await Self.add(first, app: app, admin: admin, url: receiver.url)
        try await receiver.control(["secrets": [.string(endpoint.secret)]])
        let second = try await ServerProcess.start(storeArguments, options: options)
        defer { second.kill() }

        var written = await Self.write(first, app: app, token: token, prefix: "a-", count: 10)
        written += await Self.write(second, app: app, token: token, prefix: "b-", count: 10)
        #expect(try await receiver.wait(for: .seconds(20)) { receiver.answered.count >= 2 })
        let pending = try #require(receiver.answered.first?["id"]?.stringValue)
        // Whichever node holds the endpoint (the one that committed first, or the other's poll) dies.
        let (holderNode, leaseEnd) = try await Self.lease(storeArguments)
        let firstNode = try await first.get("/1/\(app)/__admin__/stats", token: admin).json?["store"]?["node"]?.stringValue
        let (holder, survivor) = firstNode == holderNode ? (first, second) : (second, first)
        holder.kill()
        try await receiver.control(["status": 200, "delay": 0])
        written += await Self.write(survivor, app: app, token: token, prefix: "c-", count: 10)

        // The other node takes the endpoint over once the dead one's lease has run out, and
        // sends the pending delivery, with its id.
        #expect(try await receiver.wait(for: .seconds(30)) { receiver.accepted.first?["id"]?.stringValue == pending })
        let takenOver = Int64(Date().timeIntervalSince1970 * 1e9)
        #expect(takenOver >= leaseEnd, "another node sent it only after the dead node's lease ran out")

        // Both nodes write again (the first one restarted); everything arrives, in order.
        let third = try await ServerProcess.start(storeArguments, options: options)
        defer { third.kill() }
        try await receiver.control(["delay": 0])
        async let fromSurvivor = Self.write(survivor, app: app, token: token, prefix: "d-", count: 35)
        async let fromThird = Self.write(third, app: app, token: token, prefix: "e-", count: 35)
        written += await fromSurvivor + fromThird
        #expect(written.count == 100)
        let complete = try await receiver.wait(for: .seconds(60)) {
            Set(written).isSubset(of: Set(receiver.acceptedEvents.compactMap { $0.data["id"]?.stringValue }))
        }
        #expect(complete, "\(receiver.acceptedEvents.count) events of \(written.count) changes delivered")
        Self.expectVerifiedAndInOrder(receiver)
        #expect(receiver.mostAtOnce == 1, "one request at a time to the endpoint, whichever node sent it")
    }

    @Test(.timeLimit(.minutes(2)))
    func theCommandsManageAnEndpoint() async throws {
        try PythonReceiver.require()
        let (storeArguments, remove) = try CrashStore.sqlite.place()
        defer { Task { await remove() } }
        let receiver = try await PythonReceiver.start()
        defer { receiver.stop() }
        let server = try await ServerProcess.start(storeArguments, options: Self.quickRetries)
        defer { server.kill() }
        let (app, admin) = try await server.credentials()
        func run(_ arguments: String...) async throws -> [String] { try await Self.webhooks(server, app: app, admin: admin, arguments) }

        let added = try await run("add", receiver.url, "--events", "change,space.member", "--bucket", "jobs", "--description", "office")
        let id = try #require(added.first?.split(separator: " ").first.map(String.init))
        let secret = try #require(added.first { $0.hasPrefix("  secret:") }?.split(separator: " ").last.map(String.init))
        #expect(added.contains("  events:  change, space.member") && added.contains("  buckets: jobs"), "\(added)")
        try await receiver.control(["secrets": [.string(secret)]])
        #expect(try await run("list").contains { $0.hasPrefix("\(id)\tenabled\tchange,space.member\t\(receiver.url)") })
        let tested = try await run("test", id)
        #expect(tested.first?.hasPrefix("200 in ") == true, "\(tested)")
        #expect(receiver.answered.last?["types"] == ["webhook.test"] && receiver.answered.last?["secrets"] == [0])

        let token = try await server.issueToken(app: app, admin: admin, username: "mover")
        #expect(await Self.write(server, app: app, token: token, prefix: "j", count: 3).count == 3)
        #expect(try await receiver.wait(for: .seconds(20)) { receiver.acceptedEvents.filter { $0.data["bucket"] == "jobs" }.count == 3 })
        let deliveries = try await run("deliveries", id)
        #expect(deliveries.first?.contains("delivered") == true, "\(deliveries)")
        let delivery = try #require(deliveries.first?.split(separator: " ").first.map(String.init))
        let shownDelivery = try await run("deliveries", id, delivery)
        #expect(shownDelivery.contains { $0.hasPrefix(#"{"events":[{"id":"evt_"#) }, "\(shownDelivery)")
        #expect(try await run("show", id).contains("  pending: 0 events"))

        let rotated = try await run("rotate", id, "--overlap-seconds", "600")
        let newSecret = try #require(rotated.first?.split(separator: " ").last.map(String.init))
        #expect(rotated.contains { $0.hasPrefix("the previous secret signs too until") })
        try await receiver.control(["secrets": [.string(newSecret), .string(secret)]])
        let sentBefore = receiver.answered.count { $0["id"]?.stringValue == delivery }
        _ = try await run("replay", id, delivery)
        #expect(try await receiver.wait(for: .seconds(20)) { receiver.answered.count { $0["id"]?.stringValue == delivery } > sentBefore })
        #expect(receiver.answered.last?["id"]?.stringValue == delivery)
        #expect(receiver.answered.last?["secrets"] == [0, 1], "signed by both secrets during the overlap")

        #expect(try await run("remove", id) == ["removed \(id)"])
        #expect(try await run("list") == ["no webhook endpoints"])
        let refused = try? await run("show", id)
        #expect(refused == nil, "a missing endpoint fails the command")
        Self.expectVerifiedAndInOrder(receiver)
    }
}

extension WebhookProcessTests {
    /// The node that holds the lease on the (one) endpoint of the PostgreSQL schema in
    /// `storeArguments`, and when the lease ends (nanoseconds since the Unix epoch), read from
    /// the database.
    static func lease(_ storeArguments: [String]) async throws -> (node: String, until: Int64) {
        guard let index = storeArguments.firstIndex(of: "--database-url"), let components = URLComponents(string: storeArguments[index + 1]),
            let host = components.host, let schema = components.queryItems?.first(where: { $0.name == "schema" })?.value
        else { throw WebhookProcessError.command("no database URL in \(storeArguments)") }
        let logger = Logger(label: "webhook-test")
        let connection = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                host: host, port: components.port ?? 5432, username: components.user ?? "postgres", password: components.password,
                database: String(components.path.dropFirst()), tls: .disable),
            id: 1, logger: logger)
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query(
            "SELECT lease_node, lease_until FROM \(unescaped: "\"\(schema)\"").webhook_endpoints WHERE lease_until IS NOT NULL",
            logger: logger
        ).collect()
        guard let lease = try rows.first?.decode((String, Int64).self) else { throw WebhookProcessError.command("no node holds the endpoint") }
        return lease
    }
}

enum WebhookProcessError: Error {
    case command(String)
}
