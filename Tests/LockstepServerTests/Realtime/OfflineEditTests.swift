import Foundation
import LockstepCore
import LockstepServer
import Testing

/// A device edits a note offline while another makes many changes to it: when it comes back,
/// its edit rebases over every one of them (history is kept by age, not by a count of 60),
/// and every replica ends the same (issue 23's scenario, with raw Simperium frames).
@Suite("Offline edits survive a busy history")
struct OfflineEditTests {
    @Test(.timeLimit(.minutes(3)), arguments: [70, 1000, 10_000])
    func anOfflineEditSurvivesManyChangesMeanwhile(changes count: Int) async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/note?ccid=create", body: ["content": "hello world", "n": 0])
        let cv = try #require(try await user.request("GET", "note/changes").json?[0]?["cv"]?.stringValue)

        // A makes `count` changes, pipelined: the counter each time, the text's start every tenth.
        let a = try await SocketTestClient.connect(to: server)
        defer { Task { await a.close() } }
        try await a.initialize(token: user.token, clientID: "a")
        var length = 11
        for version in 1...count {
            var diff: JSONObject = ["n": ["o": "r", "v": .integer(Int64(version))]]
            if version.isMultiple(of: 10) {
                diff["content"] = ["o": "d", "v": .string("+A\t=\(length)")]
                length += 1
            }
            try await a.send(changeMessage(id: "note", ccid: "a-\(version)", sv: version, diff: .object(diff)))
        }
        let acks = try await a.changes(count, timeout: .seconds(60))
        #expect(acks.allSatisfy { $0["error"] == nil }, "\(acks.first { $0["error"] != nil } ?? [:])")

        // B was at version 1 the whole time: it comes back, asks for what it missed and resends its edit.
        let b = try await SocketTestClient.connect(to: server)
        defer { Task { await b.close() } }
        try await b.initialize(token: user.token, clientID: "b", follow: false)
        var replica = GhostReplica(ghosts: ["note": .init(version: 1, data: ["content": "hello world", "n": 0])], cursor: cv)
        try await b.send("0:cv:\(cv)")
        try await b.send(changeMessage(
            id: "note", ccid: "b-1", sv: 1, diff: ["content": ["o": "d", "v": "=11\t+-B"], "tag": ["o": "+", "v": "b"]]))
        let seen = try await b.changes(count + 1, timeout: .seconds(60))
        for change in seen { try replica.apply(change) }
        #expect(seen.last?["ccids"] == ["b-1"] && seen.last?["error"] == nil, "\(seen.last ?? [:])")

        let note = try #require(try await user.request("GET", "note/i/note").json?.objectValue)
        let prefix = String(repeating: "A", count: count / 10)
        #expect(note == ["content": .string(prefix + "hello world-B"), "n": .integer(Int64(count)), "tag": "b"])
        #expect(replica.objects == ["note": note], "B's ghost follows the server")
    }

    /// node-simperium resends a refused change with its ghost, `{"version","data"}`, as `d`:
    /// the server plans the change from its `v` and never stores the ghost as the object.
    @Test func aGhostSentAsTheObjectIsSetAside() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/e083?ccid=create", body: ["content": "hello world", "n": 0])
        for number in 1...70 {
            _ = try await user.request("POST", "note/i/e083?ccid=a\(number)", body: ["content": "A-hello world", "n": .integer(Int64(number))])
        }
        let b = try await SocketTestClient.connect(to: server)
        defer { Task { await b.close() } }
        try await b.initialize(token: user.token, clientID: "node-b")
        try await b.send(#"0:c:{"o":"M","id":"e083","ccid":"1021","v":{"content":{"o":"d","v":"=11\t+-B"}},"sv":1,"d":{"version":71,"data":{"content":"A-hello world","n":70}}}"#)
        let ack = try await b.change()
        #expect(ack["error"] == nil, "\(ack)")
        #expect(ack["ccids"] == ["1021"] && ack["ev"] == 72)
        #expect(try await user.request("GET", "note/i/e083").json == ["content": "A-hello world-B", "n": 70])
    }

    /// When the base is older than the history limits, a change that carries the whole object
    /// is merged member by member by the edit stamps; a client that asked for Lockstep's
    /// extensions learns so from its acknowledgement, others see a plain change; the metric counts it.
    @Test func aChangeWhoseBaseWasPrunedMergesByMemberAndSaysSo() async throws {
        var limits = TestServer.testLimits
        limits.historyRetentionSeconds = 0
        limits.retainedVersions = 2
        limits.snapshotInterval = 4
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        // A device with a clock (Lockstep's `t`) writes the title at 1000 and the counter until 2012.
        let writer = try await SocketTestClient.connect(to: server)
        defer { Task { await writer.close() } }
        try await writer.initialize(token: user.token, clientID: "writer")
        try await writer.send(changeMessage(id: "doc", ccid: "create", data: ["title": "one", "body": "text", "n": 0], editTime: 1000))
        for number in 1...12 {
            try await writer.send(changeMessage(id: "doc", ccid: "n\(number)", sv: number, diff: ["n": ["o": "r", "v": .integer(Int64(number))]], editTime: 2000 + Int64(number)))
        }
        _ = try await writer.changes(13)
        #expect(try await server.services.pruner.prunePass() == 1)
        #expect(try await user.request("GET", "note/i/doc/v/1").status == 404)

        let lockstep = try await SocketTestClient.connect(to: server)
        let plain = try await SocketTestClient.connect(to: server)
        defer { Task { await lockstep.close(); await plain.close() } }
        try await lockstep.initialize(token: user.token, clientID: "ls", extra: ["lockstep": 1])
        try await plain.initialize(token: user.token, clientID: "plain")
        let before = try server.metricValue("lockstep_changes_merged_without_base_total")
        // Made offline at 1500 against version 1: a new title (later than the title's write),
        // and the counter as it stood then (earlier than the counter's last write).
        try await lockstep.send(changeMessage(id: "doc", ccid: "late", sv: 1, data: ["title": "two", "body": "text", "n": 0], editTime: 1500))
        let ack = try await lockstep.change()
        #expect(ack["fallback"] == "member-merge")
        #expect(try await plain.change()["fallback"] == nil)
        _ = try await writer.change()
        #expect(try await user.request("GET", "note/i/doc").json == ["title": "two", "body": "text", "n": 12])
        #expect(try server.metricValue("lockstep_changes_merged_without_base_total") == before + 1)

        // Without the whole object, a text edit cannot be merged: 405, saying what to send.
        try await plain.send(changeMessage(id: "doc", ccid: "text", sv: 1, diff: ["body": ["o": "d", "v": "=4\t+!"]]))
        let refusal = try await plain.change()
        #expect(refusal["error"] == 405)
        #expect(refusal["message"]?.stringValue?.contains("send the whole object") == true)
    }
}
