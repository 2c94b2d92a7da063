import Foundation
import GRDB
@testable import LockstepClient
import LockstepCore

/// Nothing listens here: every request fails at once.
let unreachableServer = URL(string: "http://127.0.0.1:9")!

/// `count` bytes that differ from those of any other seed.
func testBytes(_ count: Int, seed: UInt8) -> Data {
    var generator = SplitMix(seed: UInt64(seed) &+ 0x9e37_79b9)
    var bytes = [UInt8](repeating: 0, count: count)
    var index = 0
    while index < count {
        var word = generator.next()
        for _ in 0..<8 where index < count {
            bytes[index] = UInt8(truncatingIfNeeded: word)
            word >>= 8
            index += 1
        }
    }
    return Data(bytes)
}

/// `Attachment` under a name of its own: Swift Testing has an `Attachment` type too, and a
/// file importing both cannot say which it means (`LockstepClient.Attachment` names a member
/// of the class `LockstepClient`, not the module's type).
typealias BlobAttachment = Attachment

/// A small fast generator: test data reproducible from its seed.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

extension LockstepClient {
    /// Acknowledges `sent` (what ``Replica/takeOutgoing(bucket:resend:limit:)`` gave) as a server
    /// that applied each change as it was sent would: the test plays the server.
    func acknowledge(_ sent: [JSONValue], bucket: String) async throws {
        let changes = try sent.map { change -> RemoteChange in
            let source = change["sv"]?.integerValue
            var fields: JSONObject = [
                "clientid": .string(clientID), "id": change["id"]!, "ccids": [change["ccid"]!], "o": change["o"]!,
                "ev": .integer((source ?? 0) + 1), "cv": .string(UUID().uuidString),
            ]
            fields["v"] = change["v"]
            fields["sv"] = change["sv"]
            return try RemoteChange(json: .object(fields))
        }
        _ = try await replica.receive([ChangeBatch(bucket: bucket, changes: changes)])
    }

    /// Marks the upload of `attachment` complete, as the uploader does when the server has it all.
    func completeUpload(_ attachment: Attachment) async throws {
        try await replica.database.write { db in try AttachmentRecords.complete(db, attachment.sha256) }
        replica.outboxChanged.signal()
    }

    /// The members a sent change sets (its diff's top-level members).
    static func members(of change: JSONValue) -> Set<String> {
        Set(change["v"]?.objectValue?.keys ?? [:].keys)
    }
}
