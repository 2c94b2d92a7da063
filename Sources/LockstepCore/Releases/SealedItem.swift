import Crypto
import Foundation

/// An item as clients see it once its key is out.
public struct ReleasedItem: Sendable, Equatable {
    public var id: String
    public var data: JSONObject

    public init(id: String, data: JSONObject) {
        self.id = id
        self.data = data
    }
}

/// How an entry's item is sealed until its release.
///
/// - plaintext: `{"data":{…},"item":"sword"}` (or `{"item":null}` for an empty slot), compact
///   with sorted members, padded with spaces to the store's longest item, so that every sealed
///   item of a store has the same size and its length gives nothing away;
/// - associated data: `lockstep-releases-v1|{store}|{slot}|{start}|{end}` (ms), which binds the
///   box to its place: moved to another slot or time, it no longer opens;
/// - key: HKDF-SHA256 of the chain key at the entry's start (salt `lockstep-releases-v1`,
///   info `seal|{slot}`), so each box has a key of its own;
/// - nonce: the first 12 bytes of SHA-256(associated data);
/// - box: AES-256-GCM `nonce ‖ ciphertext ‖ tag`;
/// - digest: SHA-256(associated data ‖ box), the commitment a client compares across windows.
enum SealedItem {
    static func plaintext(of item: CatalogItem?) -> [UInt8] {
        guard let item else { return JSONSerializer().bytes(["item": nil]) }
        return JSONSerializer().bytes(["item": .string(item.id), "data": .object(item.data)])
    }

    static func associatedData(store: String, slot: Int, start: Int64, end: Int64) -> [UInt8] {
        Array("\(ReleaseWindow.format)|\(store)|\(slot)|\(start)|\(end)".utf8)
    }

    static func seal(_ item: CatalogItem?, paddedTo length: Int, chainKey: [UInt8], slot: Int, associatedData: [UInt8]) -> [UInt8] {
        var plaintext = plaintext(of: item)
        plaintext.append(contentsOf: repeatElement(UInt8(ascii: " "), count: max(0, length - plaintext.count)))
        // The key is used for this one box only, so a nonce derived from its place is safe.
        let nonce = try! AES.GCM.Nonce(data: Array(SHA256.hash(data: associatedData)).prefix(12))
        let box = try! AES.GCM.seal(plaintext, using: sealingKey(chainKey, slot: slot), nonce: nonce, authenticating: associatedData)
        return Array(box.combined!)
    }

    /// The item in `box`, `nil` for an empty slot; throws when the box does not open with this
    /// key at this place.
    static func open(_ box: [UInt8], chainKey: [UInt8], slot: Int, associatedData: [UInt8]) throws(ReleaseVerificationError) -> ReleasedItem? {
        guard let sealed = try? AES.GCM.SealedBox(combined: box),
            let plaintext = try? AES.GCM.open(sealed, using: sealingKey(chainKey, slot: slot), authenticating: associatedData),
            let value = try? JSONValue(parsing: plaintext)
        else { throw ReleaseVerificationError("the item of slot \(slot) does not open with its key: it was tampered with or moved") }
        if value["item"]?.isNull == true { return nil }
        guard let id = value["item"]?.stringValue else { throw ReleaseVerificationError("the item of slot \(slot) has no id") }
        return ReleasedItem(id: id, data: value["data"]?.objectValue ?? [:])
    }

    static func digest(associatedData: [UInt8], box: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: associatedData)
        hasher.update(data: box)
        return Array(hasher.finalize())
    }

    private static func sealingKey(_ chainKey: [UInt8], slot: Int) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: chainKey), salt: ReleaseSeed.salt, info: Array("seal|\(slot)".utf8), outputByteCount: 32)
    }
}
