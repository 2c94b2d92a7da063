import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Several raw Simperium clients editing one object within the same millisecond: every
/// acknowledged change is in the result, once, and none against a retained version is refused.
@Suite("Concurrent changes over sockets (SQLite and PostgreSQL)")
struct ConcurrentChangesTests {
    /// Two increments and two list inserts against one version, from two connections: the
    /// counter adds both, the list holds both (the record kept the increment, not a replace).
    @Test(arguments: StoreKind.allCases)
    func incrementsAndListInsertsFromTwoClientsBothLand(_ kind: StoreKind) async throws {
        try await TestServer.with(kind) { server in
            let user = try await server.createUser()
            let a = try await SocketTestClient.connect(to: server)
            let b = try await SocketTestClient.connect(to: server)
            defer { Task { await a.close(); await b.close() } }
            try await a.initialize(token: user.token, clientID: "a")
            try await b.initialize(token: user.token, clientID: "b")
            try await a.send(changeMessage(id: "doc", ccid: "create", data: ["n": 0, "items": []]))
            _ = try await a.change()
            _ = try await b.change()

            async let sentA: Void = a.send(changeMessage(
                id: "doc", ccid: "a-1", sv: 1, diff: ["n": ["o": "I", "v": 5], "items": ["o": "L", "v": ["0": ["o": "+", "v": "x"]]]]))
            async let sentB: Void = b.send(changeMessage(
                id: "doc", ccid: "b-1", sv: 1, diff: ["n": ["o": "I", "v": 2], "items": ["o": "L", "v": ["0": ["o": "+", "v": "y"]]]]))
            _ = try await (sentA, sentB)
            for client in [a, b] {
                let acks = try await client.changes(2)
                #expect(Set(acks.compactMap { $0["ccids"]?[0]?.stringValue }) == ["a-1", "b-1"])
                #expect(acks.allSatisfy { $0["error"] == nil })
            }
            let doc = try #require(try await user.request("GET", "note/i/doc").json)
            #expect(doc["n"] == 7)
            #expect(Set(doc["items"]?.arrayValue ?? []) == ["x", "y"])
        }
    }

    /// Four connections send one change each against version 1 at the same moment, thirty
    /// times: every version is retained, so none may be refused; every change lands once.
    @Test(.timeLimit(.minutes(2)), arguments: StoreKind.allCases)
    func racingChangesAgainstARetainedVersionAreNeverRefused(_ kind: StoreKind) async throws {
        try await TestServer.with(kind) { server in
            let user = try await server.createUser()
            var connected: [SocketTestClient] = []
            for index in 0..<4 {
                let client = try await SocketTestClient.connect(to: server)
                try await client.initialize(token: user.token, clientID: "c\(index)")
                connected.append(client)
            }
            let clients = connected
            defer { Task { for client in clients { await client.close() } } }
            var refusals: [String] = []
            for round in 0..<30 {
                let key = "doc\(round)"
                try await clients[0].send(changeMessage(id: key, ccid: "\(key)-create", data: ["n": 0, "text": "ab"]))
                for client in clients { _ = try await client.change() }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, client) in clients.enumerated() {
                        group.addTask {
                            try await client.send(changeMessage(
                                id: key, ccid: "\(key)-\(index)", sv: 1,
                                diff: ["n": ["o": "I", "v": .integer(Int64(index + 1))], "m\(index)": ["o": "+", "v": true]]))
                        }
                    }
                    try await group.waitForAll()
                }
                for client in clients {
                    for change in try await client.changes(4) where change["error"] != nil {
                        refusals.append("round \(round): \(change["error"] ?? "?") \(change["message"] ?? "")")
                    }
                }
                let doc = try #require(try await user.request("GET", "note/i/\(key)").json)
                #expect(doc["n"] == 10, "round \(round): every increment once")
                #expect((0..<4).allSatisfy { doc["m\($0)"] == true })
            }
            #expect(refusals.isEmpty, "\(refusals)")
        }
    }
}
