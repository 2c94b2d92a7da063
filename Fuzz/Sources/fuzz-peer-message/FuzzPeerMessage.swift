@testable import ClientParsers
import FuzzSupport
import LockstepCore

@main enum FuzzPeerMessage {
    static func main() { runFuzzer { data, count in fuzzPeerMessage(data, count) } }
}

/// What a nearby device sends: an announcement on the local network, a hello, and, sealed, a
/// want, runs of changes, and the blob messages (requests, chunks, `noBlob`). Every reader gets every input, so one corpus serves them all.
///
/// Input: one message. Sealed messages are read as the opener sees them after a successful
/// open (the cipher is not what is under test, beyond refusing frames that do not open).
///
/// Laws: a message is taken or refused with an error, never a crash; what is taken writes back
/// the same; member edits keep their algebra (set whole, edits followed by later ones are both
/// in turn; edits restricted to their own members still make the same edits; a text base is
/// kept only for a member set to a string); merging them into an object never crashes.
func fuzzPeerMessage(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = FuzzInput(data, count).bytes
    if let announcement = PeerAnnouncement(bytes: bytes, from: nil) {
        law(PeerAnnouncement(bytes: announcement.bytes, from: nil) == announcement, "an announcement does not read back")
    }
    if let peer = try? PeerMessage.peer(inHello: bytes, bucket: "notes", clientID: "me") {
        law(!peer.isEmpty && peer != "me", "a hello from nobody, or from this client, was taken")
    }
    if let want = try? PeerMessage.want(in: bytes) {
        law((try? PeerMessage.want(in: PeerMessage.want(want))) == want, "a want does not read back")
    }
    if let chunk = try? PeerBlobMessage.chunk(in: bytes) {
        law(chunk.offset >= 0 && chunk.offset + Int64(chunk.bytes.count) <= chunk.size, "a blob chunk past its blob's end was taken")
        law(Attachment.isHash(chunk.sha256), "a blob chunk's hash is not 64 lowercase hexadecimal digits")
    }
    if let message = try? JSONValue(parsing: bytes) {
        for request in (try? PeerBlobMessage.requests(in: message)) ?? [] {
            law(Attachment.isHash(request.sha256) && 0 <= request.from && request.from <= request.size, "a blob request out of bounds was taken")
        }
        if let missing = PeerBlobMessage.missing(in: message) { law(Attachment.isHash(missing), "a noBlob naming no hash was taken") }
    }
    var opener = PeerKeys(peerKey: Array(repeating: 7, count: 32), isInitiator: true, initiatorHello: [1], acceptorHello: [2]).opening
    law((try? opener.open(bytes)) == nil, "a frame sealed by no one opened")

    guard let changes = try? PeerMessage.changes(in: bytes, bucket: "notes") else { return 0 }
    law((try? PeerMessage.changes(in: PeerMessage.changes(changes), bucket: "notes")) == changes, "changes do not read back")
    var object: JSONObject = [:]
    for (earlier, later) in zip(changes.map(\.change.edits), changes.dropFirst().map(\.change.edits)) {
        let both = earlier.followed(by: later)
        law(setWhole(both, object) == setWhole(later, setWhole(earlier, object)), "edits followed by later ones differ from both in turn")
        let restricted = earlier.restricted(to: earlier.members)
        law(restricted.assigned == earlier.assigned && restricted.removed == earlier.removed, "edits restricted to their own members changed")
        law(both.textBases.keys.allSatisfy { both.assigned[$0]?.stringValue != nil }, "a text base for a member not set to a string")
        object = both.merged(into: object, winning: both.members).object
    }
    for logged in changes {
        for member in logged.change.edits.members { _ = logged.change.stamp(of: member) }
    }
    return 0
}

/// Member edits applied as whole values: each member set or removed, text bases aside.
func setWhole(_ edits: MemberEdits, _ object: JSONObject) -> JSONObject {
    var result = object
    for name in edits.removed { result[name] = nil }
    for (name, value) in edits.assigned { result[name] = value }
    return result
}
