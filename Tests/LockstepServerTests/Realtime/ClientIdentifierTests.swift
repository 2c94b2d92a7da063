import Foundation
import LockstepCore
@testable import LockstepServer
import Testing

/// A client id (`clientid` at init or in a query, a carried change's `author`) is bounded:
/// 1 to 256 bytes, no control characters; past that a clear 400, and nothing is stored.
@Suite("Client ids: bounded wherever a client names one")
struct ClientIdentifierTests {
    static let tooLong = String(repeating: "c", count: ClientIdentifier.maximumBytes + 1)

    @Test func overHTTP() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let refused = try await user.request("POST", "note/i/n1?clientid=\(Self.tooLong)", body: ["a": 1])
        #expect(refused.status == 400 && refused.text.contains("clientid must be 1 to 256 bytes"), "\(refused)")
        #expect(try await user.request("GET", "note/i/n1").status == 404, "nothing was stored")
        let batch: JSONValue = [["id": "n2", "ccid": "b-1", "o": "M", "v": addingDiff(["a": 1])]]
        #expect(try await user.request("POST", "note/changes?clientid=\(Self.tooLong)", body: batch).status == 400)
        #expect(try await user.request("GET", "note/i/n2").status == 404, "nothing was stored")
        let longest = String(repeating: "c", count: ClientIdentifier.maximumBytes)
        #expect(try await user.request("POST", "note/i/n1?clientid=\(longest)", body: ["a": 1]).status == 200)
    }

    @Test func overTheSocket() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let socket = try await SocketTestClient.connect(to: server)
        defer { Task { await socket.close() } }
        let refusal = try await socket.initialize(token: user.token, clientID: Self.tooLong, follow: false)
        #expect(refusal.contains("400") && refusal.contains("clientid must be 1 to 256 bytes"), "\(refusal)")

        try await socket.initialize(channel: 1, token: user.token, clientID: "carrier")
        var carried: JSONObject = ["id": "n1", "ccid": "c-1", "o": "M", "v": addingDiff(["a": 1])]
        carried["author"] = .string(Self.tooLong)
        try await socket.send("1:c:\(JSONValue.object(carried))")
        let answer = try firstChange(try await socket.json(after: "1:c:"))
        #expect(answer["error"] == 400, "\(answer)")
        carried["author"] = "phone-of-ann"
        carried["ccid"] = "c-2"
        try await socket.send("1:c:\(JSONValue.object(carried))")
        let accepted = try firstChange(try await socket.json(after: "1:c:"))
        #expect(accepted["clientid"] == "phone-of-ann", "recorded as its author's: \(accepted)")
    }
}
