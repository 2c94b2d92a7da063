import Foundation
import LockstepCore

/// The messages that carry attachment bytes between peers, sealed like every other message of
/// a link (see ``PeerSession``). Only sent to a peer whose hello said `"blobs":1`: an older peer
/// never sees them.
///
/// - `{"blobs":[{"sha256":…,"size":N,"from":K},…]}` asks for blobs this side lacks, each from
///   byte `K` (what a cut link left of it).
/// - `{"noBlob":"<hex>"}` says the asked peer does not hold that blob (evicted, or never had it).
/// - `{"taken":1}` says a chunk was taken in (written, or dropped): the holder sends no more
///   than ``PeerBlobQueue/window`` chunks ahead of these, so a receiver slower than the link
///   never holds more than that many in memory.
/// - A chunk is binary, not JSON: byte `0x00`, the 32 bytes of the SHA-256, the offset and the
///   blob's total size (8 bytes each, big-endian), then the bytes. JSON messages start with `{`.
enum PeerBlobMessage {
    /// One blob asked for, from byte `from`.
    struct Request: Sendable, Equatable {
        var sha256: String
        var size: Int64
        var from: Int64
    }

    struct Chunk: Equatable {
        var sha256: String
        var offset: Int64
        var size: Int64
        var bytes: ArraySlice<UInt8>
    }

    static let chunkMarker: UInt8 = 0
    static let chunkHeaderBytes = 1 + 32 + 8 + 8

    static func request(_ requests: [Request]) -> [UInt8] {
        let entries = requests.map { JSONValue.object(["sha256": .string($0.sha256), "size": .integer($0.size), "from": .integer($0.from)]) }
        return JSONValue.object(["blobs": .array(entries)]).jsonBytes
    }

    static func noBlob(_ sha256: String) -> [UInt8] {
        JSONValue.object(["noBlob": .string(sha256)]).jsonBytes
    }

    static let taken = JSONValue.object(["taken": .integer(1)]).jsonBytes

    /// Whether a JSON message says a chunk was taken in.
    static func isTaken(_ message: JSONValue) -> Bool {
        message["taken"]?.integerValue == 1
    }

    static func chunk(sha256: String, offset: Int64, size: Int64, bytes: Data) -> [UInt8] {
        var message = [chunkMarker]
        message.reserveCapacity(chunkHeaderBytes + bytes.count)
        message += Hex.decode(sha256) ?? []
        message += withUnsafeBytes(of: offset.bigEndian, Array.init)
        message += withUnsafeBytes(of: size.bigEndian, Array.init)
        message += bytes
        return message
    }

    /// The chunk `message` is, or `nil` for a JSON message.
    static func chunk(in message: [UInt8]) throws -> Chunk? {
        guard message.first == chunkMarker else { return nil }
        guard message.count >= chunkHeaderBytes else { throw PeerSyncError.protocolViolation("a blob chunk without its header") }
        let sha256 = Hex.encode(Array(message[1..<33]))
        let offset = integer(message[33..<41])
        let size = integer(message[41..<49])
        let bytes = message[chunkHeaderBytes...]
        // Subtracted, not added: an offset near Int64.max from a stranger must not overflow.
        guard offset >= 0, size >= 0, Int64(bytes.count) <= size, offset <= size - Int64(bytes.count) else {
            throw PeerSyncError.protocolViolation("a blob chunk past the blob's end")
        }
        return Chunk(sha256: sha256, offset: offset, size: size, bytes: bytes)
    }

    /// The blobs a JSON message asks for, or `nil` for a message of another kind.
    static func requests(in message: JSONValue) throws -> [Request]? {
        guard let entries = message["blobs"]?.arrayValue else { return nil }
        return try entries.map { entry in
            guard let sha256 = entry["sha256"]?.stringValue, Attachment.isHash(sha256), let size = entry["size"]?.integerValue,
                let from = entry["from"]?.integerValue, size >= 0, from >= 0, from <= size
            else { throw PeerSyncError.protocolViolation("a blob request without a well-formed sha256, size or from") }
            return Request(sha256: sha256, size: size, from: from)
        }
    }

    /// The blob a `noBlob` message names, or `nil` for a message of another kind.
    static func missing(in message: JSONValue) -> String? {
        message["noBlob"]?.stringValue.flatMap { Attachment.isHash($0) ? $0 : nil }
    }

    private static func integer(_ bytes: ArraySlice<UInt8>) -> Int64 {
        bytes.reduce(0) { $0 << 8 | Int64($1) }
    }
}
