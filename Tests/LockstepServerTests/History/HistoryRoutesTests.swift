import Foundation
import LockstepCore
@testable import LockstepServer
import Testing

/// History over HTTP and the socket: versions with their authors, two versions compared, an
/// object and a bucket put back, and what each refuses, with what message.
@Suite("History: versions, compare, restore", .timeLimit(.minutes(3)))
struct HistoryRoutesTests {
    @Test(arguments: StoreKind.allCases)
    func anObjectIsRestoredAsANewChangeEveryDeviceReceives(_ kind: StoreKind) async throws {
        var limits = TestServer.testLimits
        limits.snapshotInterval = 2
        try await TestServer.with(kind, limits: limits) { server in
            let ann = try await server.createUser("ann@example.com")
            for title in ["Sofa", "Blue sofa", "Blue sofa, torn"] {
                #expect(try await ann.request("POST", "items/i/sofa?replace=1&clientid=phone-1", body: ["title": .string(title), "room": "lounge"]).status == 200)
            }
            let device = try await SocketTestClient.connect(to: server)
            defer { Task { await device.close() } }
            try await device.initialize(bucket: "items", token: ann.token, clientID: "tablet")

            let restored = try await ann.request("POST", "items/i/sofa/restore?clientid=laptop&ccid=undo-1", body: ["version": 1])
            #expect(restored.status == 200, "\(restored)")
            #expect(restored.json == ["id": "sofa", "version": 4, "restoredFrom": 1, "changed": true])
            #expect(restored.header("X-Simperium-Version") == "4")
            let received = try await device.change()
            #expect(received["ev"] == 4 && received["ccids"] == ["undo-1"] && received["clientid"] == "laptop", "\(received)")
            #expect(try await ann.request("GET", "items/i/sofa").json == ["title": "Sofa", "room": "lounge"])

            // The restore is in the history, with its author and what it restored.
            let history = try await ann.request("GET", "items/i/sofa/versions")
            let versions = history.json?["versions"]?.arrayValue ?? []
            #expect(versions.map { $0["v"]?.integerValue } == [4, 3, 2, 1], "\(history)")
            #expect(versions.first?["restoredFrom"] == 1 && versions.first?["ccid"] == "undo-1")
            // A user's own bucket: their id, no email (it is theirs).
            #expect(versions.first?["author"] == ["kind": "user", "user": .string(ann.userID), "client": "laptop"])
            #expect(versions.last?["author"]?["client"] == "phone-1" && versions.last?["restoredFrom"] == nil)
            let paged = try await ann.request("GET", "items/i/sofa/versions?limit=2&before=4")
            #expect(paged.json?["versions"]?.arrayValue?.map { $0["v"]?.integerValue } == [3, 2] && paged.json?["before"] == 2, "\(paged)")

            // Restoring what the object already holds changes nothing.
            let again = try await ann.request("POST", "items/i/sofa/restore", body: ["version": 1])
            #expect(again.json == ["id": "sofa", "version": 4, "restoredFrom": 1, "changed": false], "\(again)")

            // Refusals say what was wrong.
            let future = try await ann.request("POST", "items/i/sofa/restore", body: ["version": 9])
            #expect(future.status == 404 && future.errorMessage == "sofa has no version 9: its latest is 4", "\(future)")
            for body: JSONValue in [["version": 0], ["version": "2"], ["v": 2]] {
                let bad = try await ann.request("POST", "items/i/sofa/restore", body: body)
                #expect(bad.status == 400 && bad.errorMessage?.contains("{\"version\": N}") == true, "\(body): \(bad)")
            }
            let missing = try await ann.request("POST", "items/i/nothing/restore", body: ["version": 1])
            #expect(missing.status == 404 && missing.errorMessage == "there is no object nothing in items", "\(missing)")

            // A version the pruner took is gone, and says so.
            _ = try await server.services.store.pruneHistory(
                after: nil, limit: 10, policy: HistoryPolicy(keepSince: .max, keepLatest: 1, keepAtMost: 10_000))
            let pruned = try await ann.request("POST", "items/i/sofa/restore", body: ["version": 1])
            #expect(pruned.status == 410 && pruned.errorMessage?.hasPrefix("version 1 of sofa is no longer retained (history keeps 30 days") == true, "\(pruned)")

            // A removed object never comes back, restored or not.
            #expect(try await ann.request("DELETE", "items/i/sofa").status == 200)
            let removed = try await ann.request("POST", "items/i/sofa/restore", body: ["version": 4])
            #expect(removed.status == 410 && removed.errorMessage == "object sofa was removed at version 5; removed objects never come back", "\(removed)")
            #expect(try await ann.request("GET", "items/i/sofa").status == 404)
        }
    }

    @Test func twoVersionsAreComparedAsAJSONDiffAndAsTextPerString() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try await server.createUser()
        let versions: [JSONObject] = [
            ["title": "Sofa", "notes": "two seats, grey", "address": ["street": "1 High St"], "n": 1],
            ["title": "Blue Sofa", "notes": "two seats, blue", "address": ["street": "10 High St"], "n": 2, "room": "lounge"],
        ]
        for data in versions {
            #expect(try await ann.request("POST", "items/i/sofa?replace=1", body: .object(data)).status == 200)
        }
        let compared = try await ann.request("GET", "items/i/sofa/compare?from=1&to=2")
        #expect(compared.status == 200, "\(compared)")
        #expect(compared.json?["from"] == 1 && compared.json?["to"] == 2 && compared.json?["id"] == "sofa")
        let diff = try ObjectDiff(json: try #require(compared.json?["diff"]))
        #expect(try diff.apply(to: versions[0]) == versions[1], "the jsondiff turns one into the other")
        #expect(compared.json?["text"] == [
            "title": [["+", "Blue "], ["=", "Sofa"]],
            "notes": [["=", "two seats, "], ["-", "grey"], ["+", "blue"]],
            "address.street": [["=", "1"], ["+", "0"], ["=", " High St"]],
        ], "\(compared)")
        // `to` is the current version by default; a backwards comparison is the reverse.
        let current = try await ann.request("GET", "items/i/sofa/compare?from=2")
        #expect(current.json?["to"] == 2 && current.json?["text"] == [:], "\(current)")
        let back = try await ann.request("GET", "items/i/sofa/compare?from=2&to=1")
        #expect(try ObjectDiff(json: try #require(back.json?["diff"])).apply(to: versions[1]) == versions[0])

        let noFrom = try await ann.request("GET", "items/i/sofa/compare")
        #expect(noFrom.status == 400 && noFrom.errorMessage?.contains("?from=N") == true, "\(noFrom)")
        let beyond = try await ann.request("GET", "items/i/sofa/compare?from=1&to=3")
        #expect(beyond.status == 404 && beyond.errorMessage == "sofa has no version 3: its latest is 2", "\(beyond)")
        #expect(try await ann.request("DELETE", "items/i/sofa").status == 200)
        let removal = try await ann.request("GET", "items/i/sofa/compare?from=1")
        #expect(removal.status == 404 && removal.errorMessage == "version 3 of sofa is its removal, which holds no data", "\(removal)")
    }

    @Test(arguments: StoreKind.allCases)
    func aBucketIsPutBackToAMomentAsOneGroup(_ kind: StoreKind) async throws {
        var limits = TestServer.testLimits
        limits.snapshotInterval = 2
        try await TestServer.with(kind, limits: limits) { server in
            let ann = try await server.createUser("ann@example.com")
            let asAdmin = ["X-Simperium-Token": server.app.adminToken, "X-Simperium-User": ann.userID]
            for key in ["a", "b", "c", "kept"] {
                #expect(try await ann.request("POST", "items/i/\(key)?replace=1", body: ["name": .string(key)]).status == 200)
            }
            let moment = try await Self.momentAfterLastCommit(server)
            #expect(try await ann.request("POST", "items/i/a", body: ["name": "changed"]).status == 200)
            #expect(try await ann.request("DELETE", "items/i/b").status == 200)
            #expect(try await ann.request("POST", "items/i/c", body: ["name": "briefly"]).status == 200)
            #expect(try await ann.request("POST", "items/i/c", body: ["name": "c"]).status == 200)
            #expect(try await ann.request("POST", "items/i/new", body: ["name": "new"]).status == 200)
            #expect(try await ann.request("POST", "items/i/temp", body: ["name": "temp"]).status == 200)
            #expect(try await ann.request("DELETE", "items/i/temp").status == 200)
            let device = try await SocketTestClient.connect(to: server)
            defer { Task { await device.close() } }
            try await device.initialize(bucket: "items", token: ann.token, clientID: "tablet")

            // A dry run says what would change, and changes nothing.
            let dry = try await server.request("POST", "/1/\(server.appID)/items/restore", headers: asAdmin, body: ["at": .integer(moment), "dryRun": true])
            #expect(dry.status == 200, "\(dry)")
            let expected: JSONObject = ["bucket": "items", "at": .integer(moment), "changes": 2, "putBack": 1, "removed": 1, "stayRemoved": ["b"], "refused": []]
            #expect(dry.json == .object(expected.merging(["dryRun": true]) { $1 }), "\(dry)")
            #expect(try await ann.request("GET", "items/i/a").json == ["name": "changed"])

            let done = try await server.request("POST", "/1/\(server.appID)/items/restore?clientid=office", headers: asAdmin, body: ["at": .integer(moment)])
            #expect(done.json == .object(expected.merging(["dryRun": false]) { $1 }), "\(done)")
            #expect(try await ann.request("GET", "items/i/a").json == ["name": "a"])
            #expect(try await ann.request("GET", "items/i/new").status == 404, "made after the moment: removed")
            #expect(try await ann.request("GET", "items/i/b").status == 404, "removed since: stays removed")
            #expect(try await ann.request("GET", "items/i/c").json == ["name": "c"])
            // Every device receives the restore, as changes made by the admin.
            let received = try await device.changes(2)
            #expect(Set(received.compactMap { $0["id"]?.stringValue }) == ["a", "new"] && received.allSatisfy { $0["clientid"] == "office" }, "\(received)")
            let history = try await ann.request("GET", "items/i/a/versions?limit=1")
            #expect(history.json?["versions"]?[0]?["author"]?["kind"] == "admin" && history.json?["versions"]?[0]?["restoredFrom"] == 1, "\(history)")
            let removal = try await ann.request("GET", "items/i/new/versions?limit=1")
            #expect(removal.json?["versions"]?[0]?["removed"] == true && removal.json?["versions"]?[0]?["restoredFrom"] == 0, "\(removal)")

            // Who may, and what is refused.
            let own = try await ann.request("POST", "items/restore", body: ["at": .integer(moment)])
            #expect(own.status == 403 && own.errorMessage == "only the app's admin token restores bucket items to a moment", "\(own)")
            let ahead = try await server.request(
                "POST", "/1/\(server.appID)/items/restore", headers: asAdmin, body: ["at": .integer(Int64(Date().timeIntervalSince1970 * 1000) + 60_000)])
            #expect(ahead.status == 400 && ahead.errorMessage?.contains("is in the future") == true, "\(ahead)")
            for body: JSONValue in [["at": "yesterday"], [:], ["at": 5, "dryRun": "yes"]] {
                let bad = try await server.request("POST", "/1/\(server.appID)/items/restore", headers: asAdmin, body: body)
                #expect(bad.status == 400, "\(body): \(bad)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aBucketRestoreIsHeldToItsLimitAndToTheRetainedHistory(_ kind: StoreKind) async throws {
        var limits = TestServer.testLimits
        limits.snapshotInterval = 2
        limits.maximumRestoreChanges = 2
        try await TestServer.with(kind, limits: limits) { server in
            let ann = try await server.createUser()
            let asAdmin = ["X-Simperium-Token": server.app.adminToken, "X-Simperium-User": ann.userID]
            #expect(try await ann.request("POST", "items/i/old", body: ["n": 0]).status == 200)
            let moment = try await Self.momentAfterLastCommit(server)
            for key in ["x", "y", "z"] { #expect(try await ann.request("POST", "items/i/\(key)", body: ["n": 1]).status == 200) }
            let large = try await server.request("POST", "/1/\(server.appID)/items/restore", headers: asAdmin, body: ["at": .integer(moment), "dryRun": true])
            #expect(large.status == 413, "\(large)")
            #expect(large.errorMessage == "restoring bucket items to that moment would change 3 objects; the limit is 2 (--max-restore-changes)")

            // Once the changes right after the moment are pruned, it is out of reach.
            for n in 2...8 { #expect(try await ann.request("POST", "items/i/old", body: ["n": .integer(Int64(n))]).status == 200) }
            _ = try await server.services.store.pruneHistory(after: nil, limit: 10, policy: HistoryPolicy(keepSince: .max, keepLatest: 2, keepAtMost: 10_000))
            let early = try await server.request("POST", "/1/\(server.appID)/items/restore", headers: asAdmin, body: ["at": 1, "dryRun": true])
            #expect(early.status == 410 && early.errorMessage?.hasPrefix("the history of bucket items reaches back to ") == true, "\(early)")
            #expect(early.errorMessage?.hasSuffix("restore it to a moment since") == true, "\(early)")
        }
    }

    @Test func extendedEntityAnswersSayWhoAndWhen() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let owner = try await server.createUser("owner@example.com")
        try await owner.createSpace("job-1")
        let reader = try await server.createUser("reader@example.com")
        try await owner.invite(reader.username, as: "reader", to: "job-1")
        #expect(try await owner.request("POST", "__job-1.items/i/sofa?clientid=phone-1&ccid=c-1", body: ["room": "lounge"]).status == 200)
        #expect(try await owner.request("DELETE", "__job-1.items/i/sofa").status == 200)

        let plain = try await SocketTestClient.connect(to: server)
        defer { Task { await plain.close() } }
        try await plain.initialize(bucket: "__job-1.items", token: reader.token, follow: false)
        try await plain.send("0:e:sofa.1")
        #expect(await plain.next(startingWith: "0:e:") == "0:e:sofa.1\n" + #"{"data":{"room":"lounge"}}"#, "Simperium clients see what they always saw")

        let extended = try await SocketTestClient.connect(to: server)
        defer { Task { await extended.close() } }
        try await extended.initialize(bucket: "__job-1.items", token: reader.token, extra: ["lockstep": 1], follow: false)
        try await extended.send("0:e:sofa.1")
        let reply = try #require(await extended.next(startingWith: "0:e:sofa.1\n"))
        let version = try JSONValue(parsing: String(reply.dropFirst("0:e:sofa.1\n".count)))
        #expect(version["data"] == ["room": "lounge"] && version["ccid"] == "c-1" && version["v"] == 1, "\(version)")
        // A space's members see each other's emails.
        #expect(version["author"] == ["kind": "user", "user": .string(owner.userID), "email": "owner@example.com", "client": "phone-1"])
        #expect(abs((version["committedAt"]?.integerValue ?? 0) - Int64(Date().timeIntervalSince1970 * 1000)) < 60_000, "\(version)")
        // A removal's version has no data: `?`, as ever.
        try await extended.send("0:e:sofa.2")
        #expect(await extended.next(startingWith: "0:e:") == "0:e:sofa.2\n?")
    }

    /// A moment (server milliseconds) after every commit so far and before any later one: the
    /// next millisecond, once the server's clock has passed it.
    static func momentAfterLastCommit(_ server: TestServer) async throws -> Int64 {
        let moment = server.services.clock.now() / 1_000_000 + 1
        while server.services.clock.now() <= moment * 1_000_000 { try await Task.sleep(for: .milliseconds(1)) }
        return moment
    }
}
