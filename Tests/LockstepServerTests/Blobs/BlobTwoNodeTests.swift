import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Blobs on two nodes of one PostgreSQL database that share a blob directory: an upload begun
/// on one node goes on on the other (a client behind a proxy lands on either), and every node
/// serves every blob to whoever may read it.
@Suite("Blobs: two nodes", .timeLimit(.minutes(2)))
struct BlobTwoNodeTests {
    @Test func anUploadBegunOnOneNodeFinishesOnTheOtherAndBothServeIt() async throws {
        try await TwoNodes.with { one, two in
            let ann = try await one.server.createUser("ann@example.com")
            let bob = try await one.server.createUser("bob@example.com")
            let photo = BlobBytes.random(400_000)
            let hash = BlobHash(of: photo)
            #expect(try await ann.createUpload(photo).status == 201)
            #expect(try await ann.patch(hash, Array(photo[..<150_000]), at: 0).status == 204)

            func onTwo(_ user: UserSession, _ method: String, _ path: String, headers: [String: String] = [:], body: JSONValue? = nil, raw: [UInt8]? = nil)
                async throws -> TestResponse
            {
                try await two.server.request(
                    method, "/1/\(one.server.appID)/\(path)", headers: headers.merging(["X-Simperium-Token": user.token]) { $1 }, body: body,
                    rawBody: raw)
            }
            let head = try await onTwo(ann, "HEAD", "__blobs__/uploads/\(hash.hex)", headers: UserSession.tus)
            #expect(head.header("Upload-Offset") == "150000", "\(head)")
            let rest = try await onTwo(
                ann, "PATCH", "__blobs__/uploads/\(hash.hex)",
                headers: UserSession.tus.merging(["Upload-Offset": "150000", "Content-Type": "application/offset+octet-stream"]) { $1 },
                raw: Array(photo[150_000...]))
            #expect(rest.status == 204 && rest.header("Upload-Offset") == "400000", "\(rest)")

            // Referred to through node two, in a bucket Bob may read: node one serves it to him.
            let admin = ["X-Simperium-Token": one.server.app.adminToken]
            #expect(try await one.server.request(
                "POST", "/1/\(one.server.appID)/__options__/i/catalog", headers: admin, body: ["shared": true]).status == 200)
            let reference = BlobBytes.reference(hash, size: photo.count)
            #expect(try await onTwo(ann, "POST", "catalog/i/lamp", body: ["photo": reference]).status == 200)
            #expect(try await bob.download(hash).body == photo)
            #expect(try await onTwo(bob, "GET", "__blobs__/\(hash.hex)").body == photo)
        }
    }
}
