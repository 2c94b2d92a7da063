public import LockstepCore

/// Binary data (a photo, a recording) that an object refers to: what ``Bucket/attach(_:type:to:member:priority:)``
/// returns, and what ``Bucket/attachment(_:of:)`` reads back.
///
/// The bytes travel outside the object, addressed by their SHA-256; the object holds only a
/// small member that any Simperium client sees as plain JSON:
///
/// ```json
/// {"photo": {"$blob": "sha256:9f86d0…", "size": 48213, "type": "image/jpeg"}}
/// ```
///
/// Two attachments with the same bytes are the same attachment, wherever they are used: the
/// device stores and uploads them once. See <doc:AttachingPhotos>.
public struct Attachment: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The SHA-256 of the bytes, as 64 lowercase hexadecimal digits.
    public var sha256: String
    /// The number of bytes.
    public var size: Int64
    /// The media type, e.g. `image/jpeg`.
    public var type: String

    /// A reference to the bytes with this hash, size and media type. An app rarely makes one:
    /// ``Bucket/attach(_:type:to:member:priority:)`` returns it, and
    /// ``Bucket/attachment(_:of:)`` reads it from an object.
    public init(sha256: String, size: Int64, type: String) {
        self.sha256 = sha256
        self.size = size
        self.type = type
    }

    /// The reference as an object's member holds it.
    public var json: JSONValue {
        [BlobReference.marker: .string("sha256:" + sha256), "size": .integer(size), "type": .string(type)]
    }

    /// The attachment a member refers to; `nil` for any other value (one without a size, too).
    public init?(json: JSONValue) {
        guard let reference = BlobReference(json), let size = reference.size, size >= 0 else { return nil }
        self.init(sha256: reference.hash.hex, size: size, type: reference.type ?? "application/octet-stream")
    }

    /// Every attachment `value` refers to, at any depth (a list of photos, a nested record).
    ///
    /// ```swift
    /// let photos = Attachment.references(in: .object(try items.get("box-12") ?? [:]))
    /// ```
    public static func references(in value: JSONValue) -> [Attachment] {
        if let attachment = Attachment(json: value) { return [attachment] }
        switch value {
        case .array(let elements): return elements.flatMap(references(in:))
        case .object(let members): return members.values.flatMap(references(in:))
        default: return []
        }
    }

    /// Whether `text` is a SHA-256 as Lockstep writes them: 64 lowercase hexadecimal digits.
    /// (Also what keeps a hash from a server or a peer from naming a path outside the store.)
    static func isHash(_ text: String) -> Bool {
        BlobHash(hex: text)?.hex == text
    }

    /// A short form for logs: the hash's first 12 digits, the size and the type.
    public var description: String { "sha256:\(sha256.prefix(12))… (\(size) bytes, \(type))" }
}
