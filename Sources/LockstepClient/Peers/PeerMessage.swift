import LockstepCore

/// The messages of the peer protocol (see ``PeerSession``), written and read. Everything a
/// nearby device sends passes through these readers before it reaches the store, so each
/// refuses what it cannot use with a ``PeerSyncError`` instead of trusting its shape.
enum PeerMessage {
    /// `{"lockstep-peer":1,"peer":…,"bucket":…,"nonce":…,"blobs":1}`: sent in the clear, with a
    /// fresh nonce, so that the keys both sides derive from the two hellos are new for every link.
    /// `"blobs":1` says this side asks for and serves attachment bytes (``PeerBlobMessage``); an
    /// older peer ignores the member, and is never sent those messages.
    static func hello(clientID: String, bucket: String) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let nonce = Hex.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return JSONValue.object([
            "lockstep-peer": .integer(1), "peer": .string(clientID), "bucket": .string(bucket), "nonce": .string(nonce),
            "blobs": .integer(1),
        ]).jsonBytes
    }

    /// The client id in a peer's hello, if it is a hello for `bucket` from another client.
    static func peer(inHello bytes: [UInt8], bucket: String, clientID: String) throws -> String {
        let hello = try json(bytes)
        guard hello["lockstep-peer"]?.integerValue == 1, let peer = hello["peer"]?.stringValue, !peer.isEmpty,
            hello["nonce"]?.stringValue?.count == 64
        else { throw PeerSyncError.protocolViolation("not a Lockstep peer hello") }
        guard hello["bucket"]?.stringValue == bucket else {
            throw PeerSyncError.protocolViolation("the peer syncs bucket \(hello["bucket"]?.stringValue ?? "?"), not \(bucket)")
        }
        guard peer != clientID else { throw PeerSyncError.protocolViolation("a link to this client itself") }
        return peer
    }

    /// Whether a peer's hello says it carries attachment bytes.
    static func offersBlobs(inHello bytes: [UInt8]) -> Bool {
        (try? json(bytes))?["blobs"]?.integerValue == 1
    }

    /// `{"want":N}`: the last position of the other side's log this side holds.
    static func want(_ cursor: Int64) -> [UInt8] {
        JSONValue.object(["want": .integer(cursor)]).jsonBytes
    }

    /// The position in a want, the first sealed message of a link.
    static func want(in bytes: [UInt8]) throws -> Int64 {
        guard let want = try json(bytes)["want"]?.integerValue else {
            throw PeerSyncError.protocolViolation("the first message is not a want")
        }
        return want
    }

    /// `{"changes":[{"seq":…,"change":…},…]}`: a run of the sender's log.
    static func changes(_ batch: [LoggedPeerChange]) -> [UInt8] {
        let changes = batch.map { JSONValue.object(["seq": .integer($0.seq), "change": $0.change.json]) }
        return JSONValue.object(["changes": .array(changes)]).jsonBytes
    }

    /// The changes a message carries, or `nil` for a message of another kind (which a later
    /// version of the protocol may send, and this one ignores).
    static func changes(in bytes: [UInt8], bucket: String) throws -> [LoggedPeerChange]? {
        try changes(inJSON: try json(bytes), bucket: bucket)
    }

    /// ``changes(in:bucket:)`` of a message parsed already.
    static func changes(inJSON message: JSONValue, bucket: String) throws -> [LoggedPeerChange]? {
        guard let entries = message["changes"]?.arrayValue else { return nil }
        return try entries.map { entry in
            guard let seq = entry["seq"]?.integerValue, let change = entry["change"] else {
                throw PeerSyncError.protocolViolation("a change without seq")
            }
            return LoggedPeerChange(seq: seq, change: try PeerChange(json: change, bucket: bucket))
        }
    }

    static func json(_ bytes: [UInt8]) throws -> JSONValue {
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw PeerSyncError.protocolViolation("a message that is not JSON")
        }
    }
}
