import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Resumable uploads (tus 1.0) and downloads against a real server: an upload sent in pieces
/// with a wrong offset on the way, a corrupted one refused with both hashes, every limit and
/// bad request answered with its status and a message that says what was wrong.
@Suite("Blobs: uploads and downloads", .timeLimit(.minutes(2)))
struct BlobUploadTests {
    @Test func anUploadSentInPiecesResumesFromTheServersOffset() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try await server.createUser()
        let bytes = BlobBytes.random(300_000)
        let hash = BlobHash(of: bytes)

        let created = try await ann.createUpload(bytes)
        #expect(created.status == 201, "\(created)")
        #expect(created.header("Location") == "/1/\(server.appID)/__blobs__/uploads/\(hash.hex)")
        #expect(created.header("Upload-Offset") == "0" && created.header("Tus-Resumable") == "1.0.0")
        #expect(try await ann.patch(hash, Array(bytes[0..<100_000]), at: 0).header("Upload-Offset") == "100000")
        // Not readable before it is whole.
        #expect(try await ann.download(hash).status == 404)

        // A client that lost track sends from the wrong place: told where the upload stands.
        let wrong = try await ann.patch(hash, Array(bytes[150_000...]), at: 150_000)
        #expect(wrong.status == 409 && wrong.errorMessage?.contains("at byte 100000") == true, "\(wrong)")
        let head = try await ann.request("HEAD", "__blobs__/uploads/\(hash.hex)", headers: UserSession.tus)
        #expect(head.header("Upload-Offset") == "100000" && head.header("Upload-Length") == "300000")
        #expect(head.header("Cache-Control") == "no-store")
        // Declaring it again (a restarted app) finds what arrived.
        #expect(try await ann.createUpload(bytes).header("Upload-Offset") == "100000")

        let last = try await ann.patch(hash, Array(bytes[100_000...]), at: 100_000)
        #expect(last.status == 204 && last.header("Upload-Offset") == "300000", "\(last)")

        let download = try await ann.download(hash)
        #expect(download.status == 200 && download.body == bytes)
        #expect(download.header("ETag") == "\"sha256:\(hash.hex)\"")
        #expect(download.header("Cache-Control")?.contains("immutable") == true)
        #expect(download.header("Content-Type") == "image/jpeg" && download.header("Accept-Ranges") == "bytes")
        let part = try await ann.download(hash, headers: ["Range": "bytes=1000-1999"])
        #expect(part.status == 206 && part.body == Array(bytes[1000...1999]))
        #expect(part.header("Content-Range") == "bytes 1000-1999/300000")
        let tail = try await ann.download(hash, headers: ["Range": "bytes=-10"])
        #expect(tail.status == 206 && tail.body == Array(bytes.suffix(10)))
        #expect(try await ann.download(hash, headers: ["Range": "bytes=300000-"]).status == 416)
        #expect(try await ann.download(hash, headers: ["If-None-Match": "\"sha256:\(hash.hex)\""]).status == 304)
        // Finished: the upload answers with its whole length, however it is asked.
        #expect(try await ann.createUpload(bytes).header("Upload-Offset") == "300000")
    }

    @Test func corruptedBytesAreRefusedWithBothHashesAndDiscarded() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try await server.createUser()
        let bytes = BlobBytes.random(50_000)
        let hash = BlobHash(of: bytes)
        var corrupted = bytes
        corrupted[25_000] ^= 0xFF

        #expect(try await ann.createUpload(bytes).status == 201)
        let refused = try await ann.patch(hash, corrupted, at: 0)
        #expect(refused.status == 460, "\(refused)")
        #expect(refused.errorMessage?.contains(BlobHash(of: corrupted).description) == true, "\(refused)")
        #expect(refused.errorMessage?.contains(hash.description) == true, "\(refused)")
        #expect(try await ann.download(hash).status == 404)
        #expect(try await ann.request("HEAD", "__blobs__/uploads/\(hash.hex)", headers: UserSession.tus).status == 404)

        // Sent again, right this time.
        #expect(try await ann.createUpload(bytes).header("Upload-Offset") == "0")
        #expect(try await ann.patch(hash, bytes, at: 0).status == 204)
        #expect(try await ann.download(hash).body == bytes)
    }

    @Test func limitsAndBadRequestsAreRefusedWithWhatWasWrong() async throws {
        var limits = TestServer.testLimits
        limits.maximumBlobBytes = 1_000_000
        limits.blobQuotaBytesPerUser = 1_500_000
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let ann = try await server.createUser()
        let bytes = BlobBytes.random(900_000)
        let hash = try await ann.upload(bytes)

        let tooBig = try await ann.createUpload([1], hash: BlobHash(of: [1]), length: 1_000_001)
        #expect(tooBig.status == 413 && tooBig.errorMessage?.contains("at most 1000000 bytes") == true, "\(tooBig)")
        let overQuota = try await ann.createUpload([2], hash: BlobHash(of: [2]), length: 700_000)
        #expect(overQuota.status == 413 && overQuota.errorMessage?.contains("of which 900000 are used") == true, "\(overQuota)")

        let noTus = try await ann.request("POST", "__blobs__", headers: ["Upload-Length": "1"])
        #expect(noTus.status == 412 && noTus.errorMessage?.contains("Tus-Resumable") == true, "\(noTus)")
        let noName = try await ann.request("POST", "__blobs__", headers: UserSession.tus.merging(["Upload-Length": "1"]) { $1 })
        #expect(noName.status == 400 && noName.errorMessage?.contains("sha256") == true, "\(noName)")
        let noLength = try await ann.request(
            "POST", "__blobs__", headers: UserSession.tus.merging(["Upload-Metadata": "sha256 \(Data(hash.hex.utf8).base64EncodedString())"]) { $1 })
        #expect(noLength.status == 400 && noLength.errorMessage?.contains("Upload-Length") == true, "\(noLength)")

        let small = BlobBytes.random(10)
        let smallHash = BlobHash(of: small)
        #expect(try await ann.createUpload(small).status == 201)
        let wrongType = try await ann.request(
            "PATCH", "__blobs__/uploads/\(smallHash.hex)",
            headers: UserSession.tus.merging(["Upload-Offset": "0", "Content-Type": "application/json"]) { $1 }, rawBody: small)
        #expect(wrongType.status == 415, "\(wrongType)")
        let pastLength = try await ann.patch(smallHash, small + [0], at: 0)
        #expect(pastLength.status == 413 && pastLength.errorMessage?.contains("past the upload's length") == true, "\(pastLength)")
        let unknown = try await ann.patch(BlobHash(of: [9]), [9], at: 0)
        #expect(unknown.status == 404 && unknown.errorMessage?.contains("create it first") == true, "\(unknown)")
        let badName = try await ann.request("HEAD", "__blobs__/uploads/not-a-hash", headers: UserSession.tus)
        #expect(badName.status == 404)

        let stranger = try await server.request("GET", "/1/\(server.appID)/__blobs__/\(hash.hex)", headers: ["X-Simperium-Token": "nope"])
        #expect(stranger.status == 401)
        let options = try await server.request("OPTIONS", "/1/\(server.appID)/__blobs__")
        #expect(options.status == 204 && options.header("Tus-Max-Size") == "1000000" && options.header("Tus-Version") == "1.0.0")
    }
}
