@testable import LockstepClient
import LockstepCore
import Testing

/// Inputs the fuzzers (Fuzz/, see FUZZING.md) found breaking the peer-sync message readers,
/// kept as they were found (minimized).
@Suite("Peer messages: what the fuzzers found")
struct PeerMessageRegressionTests {
    /// fuzz-peer-message: the second change both sets and unsets `title`. Applied on its own the
    /// member ends set; folded after the first change (as the outbox folds edits) it ends unset.
    @Test func editsThatBothSetAndUnsetAMemberAreRefused() {
        let found = #"{"changes":[{"change":{"author":"","ccid":"","edits":{"set":{},"unset":[]},"id":"","o":"M"},"seq":1},{"change":{"author":"","ccid":"","edits":{"set":{"title":""},"unset":["title"]},"id":"","o":"M"},"seq":6}]}"#
        #expect(throws: LockstepClientError.protocolViolation(#"member edits that both set and unset "title""#)) {
            try PeerMessage.changes(in: Array(found.utf8), bucket: "notes")
        }
    }

    /// What the readers take, they write back the same, and what peers write, they take.
    @Test func changesReadBackAsTheyWereWritten() throws {
        let change = PeerChange(
            bucket: "notes", key: "job-1", changeID: "c-1", author: "phone-2", operation: .modify,
            edits: MemberEdits(assigned: ["title": "Boxes"], removed: ["count"], times: ["title": 5, "count": 6]), editTime: 6)
        let logged = [LoggedPeerChange(seq: 3, change: change)]
        #expect(try PeerMessage.changes(in: PeerMessage.changes(logged), bucket: "notes") == logged)
        #expect(try PeerMessage.changes(in: PeerMessage.want(3), bucket: "notes") == nil)
        #expect(try PeerMessage.want(in: PeerMessage.want(3)) == 3)
    }

    /// A blob chunk whose offset is near Int64.max: offset + length overflowed, and the reader
    /// trapped (found reading the chunk reader before fuzzing it; now fuzzed too).
    @Test func aChunkWhoseOffsetWouldOverflowIsRefused() throws {
        var message = [PeerBlobMessage.chunkMarker] + Array(repeating: 0xAB, count: 32)
        message += withUnsafeBytes(of: Int64.max.bigEndian, Array.init)
        message += withUnsafeBytes(of: Int64.max.bigEndian, Array.init)
        message += [1, 2, 3]
        #expect(throws: (any Error).self) { try PeerBlobMessage.chunk(in: message) }
        var fits = [PeerBlobMessage.chunkMarker] + Array(repeating: 0xAB, count: 32)
        fits += withUnsafeBytes(of: Int64(7).bigEndian, Array.init)
        fits += withUnsafeBytes(of: Int64(10).bigEndian, Array.init)
        fits += [1, 2, 3]
        #expect(try PeerBlobMessage.chunk(in: fits)?.offset == 7)
    }
}
