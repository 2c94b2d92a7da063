import Foundation
import LockstepCore
import LockstepServer
import Testing

@Suite("Streaming socket: changes, acks, catch-up, index, versions")
struct SocketSyncTests {
    @Test func connectionsSeeEachOthersChangesAndTheSenderItsAck() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let events = ConnectionEvents(server)
        let alpha = try await SocketTestClient.connect(to: server)
        let beta = try await SocketTestClient.connect(to: server)
        defer { Task { await alpha.close(); await beta.close() } }
        try await alpha.initialize(token: user.token, clientID: "alpha")
        try await beta.initialize(channel: 3, token: user.token, clientID: "beta")

        try await alpha.send(changeMessage(id: "n1", ccid: "a-1", diff: addingDiff(["title": "hello"])))
        let ack = try firstChange(try await alpha.json(after: "0:c:"))
        #expect(ack["clientid"] == "alpha")
        #expect(ack["id"] == "n1")
        #expect(ack["o"] == "M")
        #expect(ack["ev"] == 1)
        #expect(ack["ccids"] == ["a-1"])
        #expect(ack["sv"] == nil, "a creation carries no sv")
        #expect(ack["v"] == addingDiff(["title": "hello"]))
        let cv = try #require(ack["cv"]?.stringValue)
        #expect(cv.count == 24)
        #expect(try firstChange(try await beta.json(after: "3:c:")) == ack)

        try await beta.send(changeMessage(channel: 3, id: "n1", ccid: "b-1", sv: 1, diff: ["title": ["o": "d", "v": "=5\t+ world"]]))
        let second = try firstChange(try await beta.json(after: "3:c:"))
        #expect(second["clientid"] == "beta")
        #expect(second["sv"] == 1)
        #expect(second["ev"] == 2)
        #expect(try #require(second["cv"]?.stringValue) > cv)
        #expect(try firstChange(try await alpha.json(after: "0:c:")) == second)
        #expect(try await user.request("GET", "note/i/n1").json == ["title": "hello world"])

        // The registry saw which connection made each change: what presence will build on.
        let makers = [await events.accepted.next(timeout: .seconds(5)) { _ in true }, await events.accepted.next(timeout: .seconds(5)) { _ in true }]
        #expect(makers.map { $0?.1.change.changeID } == ["a-1", "b-1"])
        #expect(makers[0]?.0 != makers[1]?.0)
    }

    @Test func crossedWiresConvergeWithTheLaterChangeRebased() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let x = try await SocketTestClient.connect(to: server)
        let y = try await SocketTestClient.connect(to: server)
        defer { Task { await x.close(); await y.close() } }
        try await x.initialize(token: user.token, clientID: "x")
        try await y.initialize(token: user.token, clientID: "y")
        try await x.send(changeMessage(id: "doc", ccid: "x-0", diff: addingDiff(["text": "AC"])))
        _ = try await x.json(after: "0:c:")
        _ = try await y.json(after: "0:c:")

        // Both edit version 1 at once: x appends D, y inserts B.
        async let sentX: Void = x.send(changeMessage(id: "doc", ccid: "x-1", sv: 1, diff: ["text": ["o": "d", "v": "=2\t+D"]]))
        async let sentY: Void = y.send(changeMessage(id: "doc", ccid: "y-1", sv: 1, diff: ["text": ["o": "d", "v": "=1\t+B\t=1"]]))
        _ = try await (sentX, sentY)

        for client in [x, y] {
            // Both may come in one message: they may have been committed in one group.
            let both = try await client.changes(2)
            let (first, second) = (both[0], both[1])
            #expect(first["sv"] == 1 && first["ev"] == 2)
            #expect(second["sv"] == 2 && second["ev"] == 3, "the later change is rebased onto the earlier one")
            let rebased: JSONValue = second["ccids"] == ["x-1"] ? "=3\t+D" : "=1\t+B\t=2"
            #expect(second["v"]?["text"]?["v"] == rebased)
            // A client's ghost follows the broadcasts: "AC", then the first, then the second.
            var ghost: JSONObject = ["text": "AC"]
            for change in [first, second] { ghost = try ObjectDiff(json: try #require(change["v"])).apply(to: ghost) }
            #expect(ghost == ["text": "ABCD"])
        }
        #expect(try await user.request("GET", "note/i/doc").json == ["text": "ABCD"])
    }

    @Test func aReconnectWithItsCvGetsExactlyTheChangesItMissed() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let first = try await SocketTestClient.connect(to: server)
        try await first.initialize(token: user.token, clientID: "phone")
        try await first.send(changeMessage(id: "n1", ccid: "p-1", diff: addingDiff(["n": 1])))
        let stored = try #require(try firstChange(try await first.json(after: "0:c:"))["cv"]?.stringValue)
        await first.close()

        // While the phone is away: a change over the socket from another device, two over HTTP.
        let other = try await SocketTestClient.connect(to: server)
        defer { Task { await other.close() } }
        try await other.initialize(token: user.token, clientID: "tablet")
        try await other.send(changeMessage(id: "n1", ccid: "t-1", sv: 1, diff: ["n": ["o": "r", "v": 2]]))
        _ = try await other.json(after: "0:c:")
        #expect(try await user.request("POST", "note/i/n2?ccid=h-1", body: ["m": 1]).status == 200)
        #expect(try await user.request("DELETE", "note/i/n1?ccid=h-2").status == 200)

        let again = try await SocketTestClient.connect(to: server)
        defer { Task { await again.close() } }
        try await again.initialize(token: user.token, clientID: "phone", extra: ["cmd": .string("cv:\(stored)")])
        var missed: [JSONValue] = []
        while missed.count < 3, let page = try await again.json(after: "0:c:").arrayValue { missed += page }
        #expect(missed.map { $0["ccids"] } == [["t-1"], ["h-1"], ["h-2"]])
        #expect(missed.map { $0["o"] } == ["M", "M", "-"])

        // Then it follows live, each change once.
        #expect(try await user.request("POST", "note/i/n3?ccid=h-3", body: ["k": 3]).status == 200)
        #expect(try firstChange(try await again.json(after: "0:c:"))["ccids"] == ["h-3"])
        try await again.send("h:1")
        #expect(await again.next() == "h:2", "nothing was sent twice")

        try await again.send("0:cv:00000001ffffffffffffffff")
        #expect(await again.next(startingWith: "0:cv:") == "0:cv:?")
        try await again.send("0:cv:nonsense")
        #expect(await again.next(startingWith: "0:cv:") == "0:cv:?")
    }

    @Test func socketWritesWakeHTTPLongPollers() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let current = try #require(try await user.request("GET", "note/index").json?["current"]?.stringValue)
        let client = try await SocketTestClient.connect(to: server)
        defer { Task { await client.close() } }
        try await client.initialize(token: user.token)
        async let polled = user.request("GET", "note/changes?cv=\(current)")
        let scope = BucketScope(appID: server.appID, owner: .user(user.userID), bucket: "note")
        try await waitUntil { server.services.hub.subscriberCount(scope) == 2 }
        try await client.send(changeMessage(id: "n1", ccid: "s-1", diff: addingDiff(["a": 1])))
        #expect(try await polled.json?[0]?["ccids"] == ["s-1"])
    }

    /// A walk lists every object as of its `current`, whatever is written between its pages;
    /// the channel it starts then sends each change after `current` once, and a `cv:current`
    /// that comes after them gets nothing twice.
    @Test func anIndexWalkListsEveryObjectAsOfItsCurrentWhileWritesHappen() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        for number in 1...7 { _ = try await user.request("POST", "note/i/n\(number)", body: ["n": .integer(Int64(number))]) }
        let client = try await SocketTestClient.connect(to: server)
        defer { Task { await client.close() } }
        try await client.initialize(token: user.token, follow: false)

        var pages: [JSONValue] = []
        var mark = ""
        repeat {
            try await client.send("0:i:1:\(mark)::3")
            let page = try await client.json(after: "0:i:")
            pages.append(page)
            mark = page["mark"]?.stringValue ?? ""
            // Writes in the middle of the walk: a new object, and a change to one not yet listed.
            _ = try await user.request("POST", "note/i/w\(pages.count)", body: ["during": true])
            if pages.count == 1 { _ = try await user.request("POST", "note/i/n1", body: ["n": 100]) }
        } while !mark.isEmpty
        #expect(pages.count == 3)
        let current = try #require(pages[0]["current"]?.stringValue)
        #expect(pages.allSatisfy { $0["current"]?.stringValue == current }, "one walk, one current")
        let listed = pages.flatMap { $0["index"]?.arrayValue ?? [] }
        #expect(listed.map { $0["id"]?.stringValue } == (1...7).reversed().map { "n\($0)" }, "every object once, newest first, none created later")
        #expect(listed.allSatisfy { $0["v"] == 1 && $0["d"]?["n"] != nil && $0["d"]?["n"] != 100 }, "each as of current")

        // The walk plus the changes after its current make the whole bucket.
        let later = try await client.changes(4)
        #expect(later.map { $0["id"] } == ["w1", "n1", "w2", "w3"])
        #expect(later[1]["sv"] == 1 && later[1]["ev"] == 2, "the change to n1 applies to the version indexed")
        try await client.send("0:cv:\(current)")
        #expect(try await client.json(after: "0:c:") == [], "a cv: behind what the channel was sent gets nothing twice")
    }

    @Test func entityRequestsReturnRetainedVersions() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/n1", body: ["a": 1])
        _ = try await user.request("POST", "note/i/n1", body: ["a": 2])
        _ = try await user.request("POST", "note/i/my.note", body: ["dotted": true])
        let client = try await SocketTestClient.connect(to: server)
        defer { Task { await client.close() } }
        try await client.initialize(token: user.token)

        let expected = [
            "n1.1": #"{"data":{"a":1}}"#, "n1.2": #"{"data":{"a":2}}"#, "my.note.1": #"{"data":{"dotted":true}}"#,
            "n1.3": "?", "missing.1": "?", "n1": "?", "n1.x": "?",
        ]
        for (request, answer) in expected.sorted(by: { $0.key < $1.key }) {
            try await client.send("0:e:\(request)")
            let reply = try #require(await client.next(startingWith: "0:e:\(request)\n"))
            #expect(reply == "0:e:\(request)\n\(answer)")
        }
    }

    @Test func aRepeatedCcidIsRefusedWith409AndAppliedOnce() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let client = try await SocketTestClient.connect(to: server)
        defer { Task { await client.close() } }
        try await client.initialize(token: user.token, clientID: "c1")
        let change = changeMessage(id: "n1", ccid: "once", diff: addingDiff(["a": 1]))
        try await client.send(change)
        #expect(try firstChange(try await client.json(after: "0:c:"))["ev"] == 1)
        try await client.send(change)
        let refusal = try firstChange(try await client.json(after: "0:c:"))
        #expect(refusal["error"] == 409)
        #expect(refusal["ccids"] == ["once"])
        #expect(refusal["id"] == "n1")
        #expect(refusal["clientid"] == "c1")
        let changes = try await user.request("GET", "note/changes").json?.arrayValue
        #expect(changes?.count == 1)
        #expect(try await user.request("GET", "note/i/n1").header("X-Simperium-Version") == "1")
    }
}
