@testable import LockstepClient
import Testing

@Suite("Peer link keys")
struct PeerCipherTests {
    let peerKey = Array(0..<32).map(UInt8.init)
    let initiatorHello = Array("hello from the initiator".utf8)
    let acceptorHello = Array("hello from the acceptor".utf8)

    func pair(initiatorKey: [UInt8]? = nil) -> (initiator: PeerKeys, acceptor: PeerKeys) {
        (PeerKeys(peerKey: initiatorKey ?? peerKey, isInitiator: true, initiatorHello: initiatorHello, acceptorHello: acceptorHello),
         PeerKeys(peerKey: peerKey, isInitiator: false, initiatorHello: initiatorHello, acceptorHello: acceptorHello))
    }

    @Test("messages sealed by one side open on the other, in both directions, and are not plaintext")
    func roundTrip() throws {
        var (initiator, acceptor) = pair()
        for index in 0..<5 {
            let message = Array("message \(index)".utf8)
            let sealed = try initiator.sealing.seal(message)
            #expect(!sealed.contains(subsequence: message))
            #expect(try acceptor.opening.open(sealed) == message)
            #expect(try initiator.opening.open(try acceptor.sealing.seal(message)) == message)
        }
    }

    @Test("an altered, replayed, reordered or reflected message does not open")
    func tampering() throws {
        var (initiator, acceptor) = pair()
        let first = try initiator.sealing.seal(Array("first".utf8))
        let second = try initiator.sealing.seal(Array("second".utf8))
        var altered = first
        altered[altered.count / 2] ^= 0x01
        #expect(throws: PeerSyncError.self) { try acceptor.opening.open(altered) }
        // Reordered: the second cannot stand in for the first.
        #expect(throws: PeerSyncError.self) { try acceptor.opening.open(second) }
        // Reflected: a side's own message sent back to it.
        #expect(throws: PeerSyncError.self) { try initiator.opening.open(first) }
        #expect(try acceptor.opening.open(first) == Array("first".utf8))
        // Replayed: the same message twice.
        #expect(throws: PeerSyncError.self) { try acceptor.opening.open(first) }
    }

    @Test("a device with another peer key cannot seal what opens here")
    func strangers() throws {
        var (stranger, acceptor) = pair(initiatorKey: Array(repeating: 7, count: 32))
        #expect(throws: PeerSyncError.self) { try acceptor.opening.open(try stranger.sealing.seal(Array("hi".utf8))) }
        #expect(PeerKeys.advertisedTag(peerKey: peerKey) == PeerKeys.advertisedTag(peerKey: peerKey))
        #expect(PeerKeys.advertisedTag(peerKey: peerKey) != PeerKeys.advertisedTag(peerKey: Array(repeating: 7, count: 32)))
    }

    @Test("a changed hello gives different keys")
    func transcriptBinding() throws {
        var initiator = PeerKeys(peerKey: peerKey, isInitiator: true, initiatorHello: initiatorHello, acceptorHello: Array("meddled".utf8))
        var acceptor = PeerKeys(peerKey: peerKey, isInitiator: false, initiatorHello: initiatorHello, acceptorHello: acceptorHello)
        #expect(throws: PeerSyncError.self) { try acceptor.opening.open(try initiator.sealing.seal(Array("want".utf8))) }
    }
}

extension Array where Element: Equatable {
    func contains(subsequence: [Element]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
