import Foundation
import LockstepCore
import LockstepServer
import Testing

@Suite("Streaming socket: init, heartbeats, clock, errors")
struct SocketProtocolTests {
    @Test func initAnswersThePlainUsernameAndRunsItsCommand() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser("ann@example.com")
        _ = try await user.request("POST", "note/i/n1", body: ["title": "one"])
        let client = try await SocketTestClient.connect(to: server)
        defer { Task { await client.close() } }

        // node-simperium's shape: clientid, api as a string.
        let auth = try await client.initialize(channel: 0, token: user.token)
        #expect(auth == "ann@example.com")
        #expect((try? JSONValue(parsing: auth)) == nil, "a username must never read as JSON: clients take JSON for an error")

        // Android's: client_id, a number for api, unknown fields, and the first request in cmd.
        try await client.send(#"1:init:{"name":"note","token":"\#(user.token)","client_id":"android-1","api":1.1,"library":"android","version":0,"cmd":"i::::100"}"#)
        #expect(await client.next(startingWith: "1:auth:") == "1:auth:ann@example.com")
        let index = try await client.json(after: "1:i:")
        #expect(index["index"]?.arrayValue?.map { $0["id"]?.stringValue } == ["n1"])
        #expect(index["index"]?[0]?["d"] == nil, "an empty data field asks for no data")

        try await client.send(#"2:init:{"name":"note","token":"\#(user.token)","clientid":"c","cmd":"cv:\#(index["current"]!.stringValue!)"}"#)
        #expect(await client.next(startingWith: "2:auth:") == "2:auth:ann@example.com")
        #expect(await client.next(startingWith: "2:c:") == "2:c:[]", "an up-to-date cv is answered with no changes")
    }

    @Test func refusedInitsSayWhy() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/n1", body: ["kept": true])
        let client = try await SocketTestClient.connect(to: server)
        defer { Task { await client.close() } }

        let cases: [(String, Int, String)] = [
            (#"{"name":"note","token":"0123456789abcdef0123456789abcdef"}"#, 401, "not valid"),
            (#"{"name":"note"}"#, 401, "token"),
            (#"{"token":"\#(user.token)"}"#, 400, "name"),
            (#"{"name":"bad name!","token":"\#(user.token)"}"#, 400, "bucket name"),
            (#"{"name":"note","token":"\#(user.token)","app_id":"other"}"#, 400, "app_id"),
            (#"{"name":"note","token":"\#(user.token)","cmd":"init:{}"}"#, 400, "cmd"),
            ("not json", 400, "JSON object"),
        ]
        for (number, (payload, code, words)) in cases.enumerated() {
            try await client.send("\(number):init:\(payload)")
            let refusal = try await client.json(after: "\(number):auth:")
            #expect(refusal["code"]?.integerValue == Int64(code), "\(payload)")
            #expect(refusal["msg"]?.stringValue?.contains(words) == true, "\(refusal)")
            try await client.send("\(number):i:1:::10")
            #expect(try await client.json(after: "\(number):?:")["message"]?.stringValue?.contains("not initialized") == true)
        }
        let kept = try await user.request("GET", "note/i/n1")
        #expect(kept.json == ["kept": true])

        // A socket for an app that does not exist is not even upgraded (see ConnectionDefenseTests).
        await #expect(throws: (any Error).self) { try await SocketTestClient.connect(to: server, app: "no-such-app") }
    }

    @Test func heartbeatsAndClockExchangesAreAnsweredAtOnce() async throws {
        let offset: Int64 = 5_000_000_000
        let server = try await TestServer.start(clockOffsetNanoseconds: offset)
        defer { Task { await server.stop() } }
        let client = try await SocketTestClient.connect(to: server)
        defer { Task { await client.close() } }

        for (sent, answer) in [("h:1", "h:2"), ("h:41", "h:42"), ("h:x", "h:1"), ("h:", "h:1")] {
            try await client.send(sent)
            #expect(await client.next() == answer)
        }
        // Remote log lines are ignored: the next answer is to the next heartbeat.
        try await client.send(#"log:{"log":"hello"}"#)
        try await client.send("h:7")
        #expect(await client.next() == "h:8")

        let before = ServerClockSource(offsetNanoseconds: offset).now()
        try await client.send("t:\(before)")
        let reply = try #require(await client.next(startingWith: "t:"))
        let after = ServerClockSource(offsetNanoseconds: offset).now()
        let stamps = reply.split(separator: ":").dropFirst().compactMap { Int64($0) }
        #expect(stamps.count == 3)
        #expect(stamps[0] == before, "t1 comes back as sent")
        #expect(before <= stamps[1] && stamps[1] <= stamps[2] && stamps[2] <= after, "server time, received before sent: \(reply)")

        try await client.send("t:soon")
        #expect(try await client.json(after: "?:")["code"]?.integerValue == 400)
    }

    @Test func malformedMessagesGetErrorsAndBreakNothing() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let client = try await SocketTestClient.connect(to: server)
        defer { Task { await client.close() } }
        try await client.initialize(token: user.token, clientID: "c1")
        try await client.send(changeMessage(id: "n1", ccid: "k1", diff: addingDiff(["title": "kept"])))
        _ = try await client.json(after: "0:c:")

        for nonsense in ["hello", "x:y:z", "99999999999:c:{}", ":c:{}"] {
            try await client.send(nonsense)
            let error = try await client.json(after: "?:")
            #expect(error["code"]?.integerValue == 400)
            #expect(error["message"]?.stringValue?.contains("unknown message") == true, "\(nonsense): \(error)")
        }
        try await client.writeBinary([1, 2, 3])
        #expect(try await client.json(after: "?:")["message"]?.stringValue?.contains("binary") == true)

        try await client.send("0:zz:1")
        #expect(try await client.json(after: "0:?:")["message"]?.stringValue?.contains("unknown command") == true)
        try await client.send("0:i:1:nonsense::10")
        #expect(try await client.json(after: "0:?:")["message"]?.stringValue?.contains("mark") == true)

        let badChanges: [(String, Int, String)] = [
            ("0:c:{not json", 400, ""),
            ("0:c:[1,2]", 400, ""),
            (changeMessage(id: "n1", ccid: "k2", sv: 1, diff: ["title": ["o": "bogus"]]), 440, "k2"),
            (changeMessage(id: "bad id!", ccid: "k3", diff: addingDiff(["a": 1])), 400, "k3"),
            (changeMessage(id: "n1", ccid: "k4", operation: "X"), 400, "k4"),
            (changeMessage(id: "n1", ccid: "k5", sv: 9, diff: addingDiff(["a": 1])), 405, "k5"),
            (changeMessage(id: "n1", ccid: "k6", sv: 1, diff: addingDiff(["title": "kept"])), 412, "k6"),
            (changeMessage(id: "gone", ccid: "k7", operation: "-"), 404, "k7"),
        ]
        for (message, code, ccid) in badChanges {
            try await client.send(message)
            let error = try firstChange(try await client.json(after: "0:c:"))
            #expect(error["error"]?.integerValue == Int64(code), "\(message): \(error)")
            #expect(error["ccids"] == [.string(ccid)])
            #expect(error["clientid"] == "c1")
            #expect(error["message"]?.stringValue?.isEmpty == false)
        }

        // The connection and the data are as they were.
        try await client.send("h:1")
        #expect(await client.next(startingWith: "h:") == "h:2")
        let stored = try await user.request("GET", "note/i/n1")
        #expect(stored.json == ["title": "kept"])
        #expect(stored.header("X-Simperium-Version") == "1")
    }
}

extension SocketTestClient {
    func writeBinary(_ bytes: [UInt8]) async throws {
        try await sendFrame(.binary(.init(bytes: bytes)))
    }
}
