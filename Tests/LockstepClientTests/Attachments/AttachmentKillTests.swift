import Crypto
import Foundation
@testable import LockstepClient
import LockstepCore
import Testing

/// An upload survives its process being killed: the next run asks the server how far it got
/// and sends the rest, so at most the chunk in flight is sent again.
@Suite("Attachments: killed uploads", .serialized)
struct AttachmentKillTests {
    static let size = 50_000_000
    static let chunk = 2 << 20

    @Test("a lockstep client killed at 60 % of a 50 MB upload resumes and sends at most one chunk again")
    func killedMidUpload() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        // An uplink of 20 MB/s: a chunk takes a tenth of a second, so the kill lands mid-chunk.
        let relay = try await CountingRelay.start(targetPort: server.port, bytesPerSecondUp: 20_000_000)
        defer { Task { await relay.stop() } }
        let token = try await server.createUser()
        let store = temporaryStore()
        defer { removeStore(store) }
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        let source = store.appendingPathComponent("video.bin")
        let bytes = testBytes(Self.size, seed: 70)
        try bytes.write(to: source)
        let options = [
            "client", "--store", store.appendingPathComponent("client").path, "--url", "http://127.0.0.1:\(relay.port)",
            "--app", server.appID, "--token", token,
        ]

        let first = try ToolProcess.launch(
            "lockstep", name: "attach",
            arguments: options + ["attach", "items", "clip", "video", source.path, "--type", "video/mp4", "--upload"])
        var lastAcknowledged: Int64 = 0
        while lastAcknowledged < Int64(Self.size) * 6 / 10 {
            guard let line = await first.next(startingWith: "upload ", within: .seconds(120)) else {
                Issue.record("no progress from the client: \(first.transcript)")
                return
            }
            lastAcknowledged = Self.bytes(in: line) ?? lastAcknowledged
        }
        // Half a chunk more: the kill lands while a chunk is on its way.
        try await Task.sleep(for: .milliseconds(50))
        first.kill()
        _ = await first.exitStatus(within: .seconds(10))
        let upAtKill = relay.bytesUp

        let second = try ToolProcess.launch("lockstep", name: "sync", arguments: options + ["sync", "--once", "--timeout", "120"])
        let resumedLine = try #require(await second.next(startingWith: "upload ", within: .seconds(60)), "\(second.transcript)")
        let resumedAt = try #require(Self.bytes(in: resumedLine))
        #expect(await second.exitStatus(within: .seconds(120)) == 0, "\(second.transcript)")
        #expect(second.transcript.contains("upload \(String(bytes.sha256Hex.prefix(12))) \(Self.size)/\(Self.size) completed"), "\(second.transcript)")

        // Everything the server was sent, requests and sync traffic included, less the blob once.
        let resent = relay.bytesUp - Self.size
        #expect(resumedAt >= lastAcknowledged, "resumed before the last byte the first run saw acknowledged")
        #expect(resent <= Self.chunk + 64 * 1024, "sent \(resent) bytes again; a chunk is \(Self.chunk)")
        print("""
            killed at \(lastAcknowledged) of \(Self.size) bytes acknowledged (\(upAtKill) sent up by then); \
            resumed at \(resumedAt); \(resent) bytes sent beyond the blob in all (chunk \(Self.chunk))
            """)

        // The blob is whole on the server, and the object refers to it.
        let objects = try await server.objects("items", token: token)
        let reference = try #require(objects["clip"]?["video"].flatMap(BlobAttachment.init(json:)))
        #expect(reference.sha256 == bytes.sha256Hex && reference.size == Int64(Self.size))

        // Another device downloads it with the tool, showing its progress.
        let other = store.appendingPathComponent("other")
        let output = store.appendingPathComponent("downloaded.bin")
        let otherOptions = [
            "client", "--store", other.path, "--url", server.baseURL.absoluteString, "--app", server.appID, "--token", token,
        ]
        #expect(try await LockstepTool.run(otherOptions + ["sync", "--once", "--bucket", "items"]).status == 0)
        let download = try await LockstepTool.run(otherOptions + ["download", "items", "clip", "video", "--output", output.path])
        #expect(download.status == 0, "\(download.output)")
        #expect(download.output.contains("download \(reference.sha256.prefix(12)) \(Self.size)/\(Self.size) completed"), "\(download.output)")
        #expect(try Data(contentsOf: output) == bytes)
    }

    /// The byte count of a progress line, `upload <name> <bytes>/<total> <state>`.
    static func bytes(in line: String) -> Int64? {
        let fields = line.split(separator: " ")
        guard fields.count >= 3 else { return nil }
        return fields[2].split(separator: "/").first.flatMap { Int64($0) }
    }
}

extension Data {
    var sha256Hex: String { BlobHash(digest: SHA256.hash(data: self)).hex }
}
