import Foundation
@testable import LockstepClient
import LockstepCore
import Testing

/// Edit times arrive from other devices (through peers, or through the server from any client)
/// and are taken as they come. The fuzzers found the release readers overflowing on times from
/// the wire (see FUZZING.md); the same reading of the client found this one.
@Suite("Peer merge: extreme edit times")
struct ExtremeEditTimeTests {
    /// A member stamped at `Int64.max` by a peer: editing it here dated the edit one nanosecond
    /// later, which overflowed and stopped the app on every edit of that member.
    @Test func editingAMemberStampedAtTheEndOfTimeDoesNotOverflow() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let times = ManualEditTimes()
        times.set(1_748_761_200_000_000_000)
        let device = try Replica(directory: store, editTimes: times)
        _ = try device.register(bucket: "items")
        let change = PeerChange(
            bucket: "items", key: "a", changeID: "peer-1", author: "peer", operation: .modify,
            edits: MemberEdits(assigned: ["status": "theirs"], times: ["status": .max]), editTime: .max)
        try await device.takeFromPeer(bucket: "items", peer: "peer", [LoggedPeerChange(seq: 1, change: change)])

        try await device.put(bucket: "items", key: "a", object: ["status": "mine"], priority: .normal)
        let stamps = try await device.database.read { db in try MemberStamps.all(db, "items", "a") }
        #expect(stamps["status"]?.time == .max)
        #expect(try device.object(bucket: "items", key: "a") == ["status": "mine"])
    }
}
