import Crypto
import Foundation
import LockstepCore

/// The keys of one authenticated link, derived from the bucket's peer key and both hellos.
///
/// Each direction has its own ChaCha20-Poly1305 key and counts its messages, and the counter
/// is the nonce: a message that was altered, replayed, reordered, reflected back, or sealed by
/// anyone without the peer key fails to open. Binding both hellos into the keys means a
/// meddler who changes a hello only gets links whose first message fails.
struct PeerKeys {
    var sealing: PeerSealer
    var opening: PeerOpener

    init(peerKey: [UInt8], isInitiator: Bool, initiatorHello: [UInt8], acceptorHello: [UInt8]) {
        let transcript = SHA256.hash(data: initiatorHello + [0] + acceptorHello)
        let keys = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: peerKey), salt: Array(transcript), info: Array("lockstep peer link v1".utf8),
            outputByteCount: 64)
        let bytes = keys.withUnsafeBytes { Array($0) }
        let initiatorToAcceptor = SymmetricKey(data: bytes[0..<32])
        let acceptorToInitiator = SymmetricKey(data: bytes[32..<64])
        sealing = PeerSealer(key: isInitiator ? initiatorToAcceptor : acceptorToInitiator)
        opening = PeerOpener(key: isInitiator ? acceptorToInitiator : initiatorToAcceptor)
    }

    /// The tag a device advertises for a bucket: peers with the same peer key have the same one.
    static func advertisedTag(peerKey: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array("lockstep peer tag v1".utf8), using: SymmetricKey(data: peerKey))
        return Hex.encode(Array(mac).prefix(16))
    }
}

struct PeerSealer {
    private let key: SymmetricKey
    private var counter: UInt64 = 0

    init(key: SymmetricKey) {
        self.key = key
    }

    mutating func seal(_ message: [UInt8]) throws -> [UInt8] {
        defer { counter += 1 }
        let box = try ChaChaPoly.seal(message, using: key, nonce: try PeerOpener.nonce(counter))
        return Array(box.ciphertext) + Array(box.tag)
    }
}

struct PeerOpener {
    private let key: SymmetricKey
    private var counter: UInt64 = 0

    init(key: SymmetricKey) {
        self.key = key
    }

    mutating func open(_ frame: [UInt8]) throws -> [UInt8] {
        guard frame.count >= 16 else { throw PeerSyncError.unauthenticated("a message too short to be sealed") }
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: try Self.nonce(counter), ciphertext: frame.dropLast(16), tag: frame.suffix(16))
            let message = try ChaChaPoly.open(box, using: key)
            counter += 1
            return Array(message)
        } catch {
            throw PeerSyncError.unauthenticated("a message that does not open with this bucket's peer key")
        }
    }

    static func nonce(_ counter: UInt64) throws -> ChaChaPoly.Nonce {
        try ChaChaPoly.Nonce(data: [0, 0, 0, 0] + withUnsafeBytes(of: counter.bigEndian, Array.init))
    }
}
