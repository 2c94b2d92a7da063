import Crypto
import Foundation
import LockstepCore

/// The server's own secret, kept outside the database, under which the database's secrets
/// are sealed: each app's peer secret and each user's password hash.
///
/// A copy of the database alone (a backup, a stolen disk image, a replica) then holds no peer
/// secret to derive peer keys from and no password hash to guess passwords against offline:
/// both are AES-GCM ciphertexts, each bound to its row (an app's secret to its app id, a
/// password hash to its user), so not even swapping sealed values between rows helps.
///
/// The key is 32 random bytes. `lockstep serve` reads it from `server.key` in the data
/// directory (created on first start, mode 0600), from `--server-key-file` or
/// `LOCKSTEP_SERVER_KEY_FILE`, or as 64 hex digits from `LOCKSTEP_SERVER_KEY`. Nodes sharing a
/// PostgreSQL database must share the key; the database records the key's ``id`` (a hash that
/// reveals nothing of the key) and a node with another key refuses to start.
///
/// ```swift
/// let key = ServerKey.random()
/// let sealed = key.seal("secret", context: "peer-secret/app-1")   // "sealed1:…"
/// try key.open(sealed, context: "peer-secret/app-1")               // "secret"
/// try key.open(sealed, context: "peer-secret/app-2")               // throws
/// ```
public struct ServerKey: Sendable {
    private let sealingKey: SymmetricKey
    /// Names the key without revealing it: the database keeps it to recognize its key.
    public let id: String

    /// A key from its 32 bytes.
    public init(bytes: [UInt8]) throws(ServerKeyError) {
        guard bytes.count == 32 else { throw ServerKeyError("a server key is 32 bytes (64 hex digits), not \(bytes.count)") }
        let master = SymmetricKey(data: bytes)
        sealingKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: master, info: Array("lockstep sealing key v1".utf8), outputByteCount: 32)
        id = Hex.encode(Array(HMAC<SHA256>.authenticationCode(for: Array("lockstep server key id v1".utf8), using: master)).prefix(8))
    }

    /// A key from 64 hex digits (surrounding whitespace ignored).
    public init(hex: String) throws(ServerKeyError) {
        guard let bytes = Hex.decode(hex.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ServerKeyError("a server key is 64 hex digits")
        }
        try self.init(bytes: bytes)
    }

    /// A fresh key from the system's secure generator.
    public static func random() -> ServerKey {
        // 32 bytes always make a key.
        try! ServerKey(bytes: randomBytes())
    }

    static func randomBytes() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// What sealed values start with; anything else in a sealed column is from before sealing.
    public static let sealedPrefix = "sealed1:"

    public static func isSealed(_ stored: String) -> Bool {
        stored.hasPrefix(sealedPrefix)
    }

    /// Encrypts `plaintext` bound to `context` (what the value is and whose): it opens only
    /// with this key and the same context.
    public func seal(_ plaintext: String, context: String) -> String {
        // AES-GCM fails only for nonce or key sizes, both fixed here.
        let box = try! AES.GCM.seal(Array(plaintext.utf8), using: sealingKey, authenticating: Array(context.utf8))
        return Self.sealedPrefix + box.combined!.base64EncodedString()
    }

    /// Decrypts a value made by ``seal(_:context:)``; throws when it was sealed under another
    /// key or context, or altered.
    public func open(_ sealed: String, context: String) throws(ServerKeyError) -> String {
        guard Self.isSealed(sealed), let combined = Data(base64Encoded: String(sealed.dropFirst(Self.sealedPrefix.count))),
            let box = try? AES.GCM.SealedBox(combined: combined),
            let plaintext = try? AES.GCM.open(box, using: sealingKey, authenticating: Array(context.utf8))
        else { throw ServerKeyError("a sealed value (\(context)) does not open with this server key") }
        return String(decoding: plaintext, as: UTF8.self)
    }
}

/// Why a server key could not be read, made, or used.
public struct ServerKeyError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
