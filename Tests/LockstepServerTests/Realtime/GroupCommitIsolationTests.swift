import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Three connections pipeline their changes at once, so that the server's writer takes them
/// into shared group commits; a bad change among them is refused alone, on its own connection,
/// and takes none of its neighbours with it (issue 17).
@Suite("Group commit: a refused change is refused alone (SQLite and PostgreSQL)")
struct GroupCommitIsolationTests {
    static let perClient = 30

    /// What one client sends: `perClient` creations, and after the tenth, the change that
    /// must be refused (or, for a resent change id, answered as applied already).
    struct Plan {
        var prefix: String
        var bad: (ccid: String, message: String, code: Int)
    }

    @Test(.timeLimit(.minutes(2)), arguments: StoreKind.allCases)
    func everyGoodChangeCommitsOnceAndEachBadOneGetsItsOwnError(_ kind: StoreKind) async throws {
        try await TestServer.with(kind) { server in
            let user = try await server.createUser()
            let plans = [
                // The same change id twice: applied once, the second answered 409.
                Plan(prefix: "a", bad: ("a-5", changeMessage(id: "a-5", ccid: "a-5", data: ["text": "hello", "n": 5]), 409)),
                // A text delta that does not fit the text it edits.
                Plan(prefix: "b", bad: ("b-bad", changeMessage(id: "b-3", ccid: "b-bad", sv: 1, diff: ["text": ["o": "d", "v": "=999\t+x"]]), 440)),
                // A base version that never existed.
                Plan(prefix: "c", bad: ("c-bad", changeMessage(id: "c-3", ccid: "c-bad", sv: 7, diff: ["n": ["o": "r", "v": 70]]), 405)),
                // An object id the store cannot take: refused before it is queued, and answered
                // only once the changes sent before it are.
                Plan(prefix: "d", bad: ("d-bad", changeMessage(id: "not an id!", ccid: "d-bad", data: ["text": "no"]), 400)),
            ]
            let clients = try await Self.connect(plans, to: server, as: user)
            defer { Task { for client in clients { await client.close() } } }

            try await Self.sendAtOnce(plans, clients: clients)
            try await Self.expectEachGoodChangeOnceAndEachBadOneRefused(plans, clients: clients, user: user)
        }
    }

    /// A change the store itself fails on (here a trigger that raises for one key, standing for
    /// a constraint or I/O fault the planner cannot foresee) fails its group's whole
    /// transaction. The writer then commits each change of that group alone: the failing one
    /// is answered 500 on its own connection and the others commit, once each.
    @Test(.timeLimit(.minutes(2)), arguments: StoreKind.allCases)
    func aChangeTheStoreFailsOnFailsAloneAndItsGroupCommitsWithoutIt(_ kind: StoreKind) async throws {
        try await TestServer.with(kind) { server in
            for statement in Self.poisonTrigger(kind) { try await RawRows.execute(kind, server.services.store, statement) }
            let retriedBefore = try await Self.groupsRetriedAlone(server)
            let user = try await server.createUser()
            let plans = ["a", "b", "c"].map { prefix in
                Plan(prefix: prefix, bad: ("\(prefix)-poison", changeMessage(id: "poison", ccid: "\(prefix)-poison", data: ["text": "no"]), 500))
            }
            let clients = try await Self.connect(plans, to: server, as: user)
            defer { Task { for client in clients { await client.close() } } }
            try await Self.sendAtOnce(plans, clients: clients)
            try await Self.expectEachGoodChangeOnceAndEachBadOneRefused(plans, clients: clients, user: user)
            #expect(try await user.request("GET", "note/i/poison").status == 404)
            // The poisoned changes shared groups with good ones: a group of one fails alone anyway.
            #expect(try await Self.groupsRetriedAlone(server) > retriedBefore)
        }
    }

    private static func connect(_ plans: [Plan], to server: TestServer, as user: UserSession) async throws -> [SocketTestClient] {
        var clients: [SocketTestClient] = []
        for plan in plans {
            let client = try await SocketTestClient.connect(to: server)
            try await client.initialize(token: user.token, clientID: "client-\(plan.prefix)")
            clients.append(client)
        }
        return clients
    }

    /// Each client sends `perClient` creations, all clients at once, and its bad change after the tenth.
    private static func sendAtOnce(_ plans: [Plan], clients: [SocketTestClient]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (client, plan) in zip(clients, plans) {
                group.addTask {
                    for index in 0..<Self.perClient {
                        let key = "\(plan.prefix)-\(index)"
                        try await client.send(changeMessage(id: key, ccid: key, data: ["text": "hello", "n": .integer(Int64(index))]))
                        if index == 10 { try await client.send(plan.bad.message) }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    private static func expectEachGoodChangeOnceAndEachBadOneRefused(
        _ plans: [Plan], clients: [SocketTestClient], user: UserSession
    ) async throws {
        for (client, plan) in zip(clients, plans) {
            // Each client's own answers, among the others' changes the channel also gets.
            let own = Set((0..<Self.perClient).map { "\(plan.prefix)-\($0)" } + [plan.bad.ccid])
            var answers: [String: [JSONObject]] = [:]
            var answered: [String] = []
            while answered.count < Self.perClient + 1 {
                let entry = try await client.change(timeout: .seconds(30))
                guard let ccid = entry["ccids"]?[0]?.stringValue, own.contains(ccid) else { continue }
                answers[ccid, default: []].append(entry)
                answered.append(ccid)
            }
            // Answered in the order sent, refusals in their place, however the changes were grouped.
            let sent = (0...10).map { "\(plan.prefix)-\($0)" } + [plan.bad.ccid] + (11..<Self.perClient).map { "\(plan.prefix)-\($0)" }
            #expect(answered == sent, "\(plan.prefix)")
            let refused = answers[plan.bad.ccid, default: []].filter { $0["error"] != nil }
            #expect(refused.count == 1, "\(plan.prefix): \(answers[plan.bad.ccid] ?? [])")
            #expect(refused.first?["error"]?.integerValue == Int64(plan.bad.code), "\(plan.prefix): \(refused)")
            for index in 0..<Self.perClient {
                let accepted = answers["\(plan.prefix)-\(index)", default: []].filter { $0["error"] == nil }
                #expect(accepted.count == 1, "\(plan.prefix)-\(index): \(answers["\(plan.prefix)-\(index)"] ?? [])")
            }
        }

        // What is stored: every good change once, nothing of the bad ones.
        for plan in plans {
            for index in 0..<Self.perClient {
                let object = try #require(try await user.request("GET", "note/i/\(plan.prefix)-\(index)").json)
                #expect(object == ["text": "hello", "n": .integer(Int64(index))], "\(plan.prefix)-\(index)")
            }
        }
        let feed = try #require(try await user.request("GET", "note/changes?limit=1000").json?.arrayValue)
        let ccids = feed.compactMap { $0["ccids"]?[0]?.stringValue }
        #expect(ccids.count == plans.count * Self.perClient)
        #expect(Set(ccids).count == ccids.count, "a change id twice in the feed")
    }

    /// A trigger that makes the store's insert of any change to the key `poison` fail.
    private static func poisonTrigger(_ kind: StoreKind) -> [String] {
        switch kind {
        case .sqlite:
            ["CREATE TRIGGER poison BEFORE INSERT ON changes WHEN NEW.key = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned change'); END"]
        case .postgres: [
            "CREATE FUNCTION poison() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'poisoned change'; END $$ LANGUAGE plpgsql",
            "CREATE TRIGGER poison BEFORE INSERT ON changes FOR EACH ROW WHEN (NEW.key = 'poison') EXECUTE FUNCTION poison()",
        ]
        }
    }

    /// The server's count of group commits that failed as a whole and were committed again change by change.
    private static func groupsRetriedAlone(_ server: TestServer) async throws -> Int {
        let metrics = try await server.request("GET", "/metrics").text
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("lockstep_commit_groups_retried_alone_total ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }
}
