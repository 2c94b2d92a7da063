import Foundation
import LockstepCore
@testable import LockstepServer
import Testing

/// One connection pipelines changes to many buckets at once. On PostgreSQL the writer commits
/// them in two lanes of buckets (``SyncStore/concurrentCommits``), a group of each in flight; on
/// SQLite in one. Either way each bucket's changes are answered, stored and deduplicated as if
/// one writer took them in the order sent.
@Suite("Group commit: one connection's changes to many buckets (SQLite and PostgreSQL)")
struct BucketLaneTests {
    static let buckets = (0..<8).map { "lane\($0)" }
    static let perBucket = 25

    @Test(.timeLimit(.minutes(2)), arguments: StoreKind.allCases)
    func eachBucketsChangesAreAnsweredAndStoredInOrderOnce(_ kind: StoreKind) async throws {
        try await TestServer.with(kind) { server in
            let user = try await server.createUser()
            let scopes = Self.buckets.map { BucketScope(appID: server.appID, owner: .user(user.userID), bucket: $0) }
            #expect(Set(scopes.map { ChangeWriter.lane(of: $0, among: 2) }) == [0, 1], "the buckets fall in both lanes")

            let client = try await Self.connect(to: server, as: user)
            // Round robin over the buckets, all pipelined, three objects each edited in turn.
            try await Self.send(to: client)
            for channel in Self.buckets.indices {
                let answers = try await client.changes(Self.perBucket, channel: channel, timeout: .seconds(30))
                #expect(answers.allSatisfy { $0["error"] == nil }, "\(Self.buckets[channel]): \(answers.filter { $0["error"] != nil })")
                #expect(answers.compactMap { $0["ccids"]?[0]?.stringValue } == Self.sent(on: channel), "answered in the order sent")
            }
            await client.close()

            // Sent again on a new connection, as after a cut: each is a duplicate, applied once.
            let again = try await Self.connect(to: server, as: user)
            defer { Task { await again.close() } }
            try await Self.send(to: again)
            for channel in Self.buckets.indices {
                let answers = try await again.changes(Self.perBucket, channel: channel, timeout: .seconds(30))
                #expect(answers.allSatisfy { $0["error"]?.integerValue == 409 }, "\(Self.buckets[channel]): \(answers.prefix(3))")
            }

            for (channel, bucket) in Self.buckets.enumerated() {
                let feed = try #require(try await user.request("GET", "\(bucket)/changes?limit=1000").json?.arrayValue)
                #expect(feed.compactMap { $0["ccids"]?[0]?.stringValue } == Self.sent(on: channel), "\(bucket): stored once each, in order")
                for key in 0..<3 {
                    let last = (0..<Self.perBucket).last { $0 % 3 == key }!
                    #expect(try await user.request("GET", "\(bucket)/i/o\(key)").json == ["n": .integer(Int64(last))], "\(bucket)/o\(key)")
                }
            }
        }
    }

    private static func connect(to server: TestServer, as user: UserSession) async throws -> SocketTestClient {
        let client = try await SocketTestClient.connect(to: server)
        for (channel, bucket) in buckets.enumerated() {
            try await client.initialize(channel: channel, bucket: bucket, token: user.token, clientID: "lanes")
        }
        return client
    }

    private static func send(to client: SocketTestClient) async throws {
        for index in 0..<perBucket {
            for channel in buckets.indices {
                try await client.send(changeMessage(
                    channel: channel, id: "o\(index % 3)", ccid: "\(channel)-\(index)", data: ["n": .integer(Int64(index))]))
            }
        }
    }

    private static func sent(on channel: Int) -> [String] {
        (0..<perBucket).map { "\(channel)-\($0)" }
    }
}
