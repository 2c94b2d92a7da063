public import Foundation
import LockstepCore

/// An object's history on the server: its retained versions with who made each and when, two
/// of them compared, and restores. These ask the server, so they need the network.
///
/// ```swift
/// let items = try client.bucket("items")
/// let versions = try await items.versions(of: "sofa")          // newest first
/// let change = try await items.compare("sofa", from: 3, to: 4)
/// print(change.text["notes"] ?? "")                            // what became of the notes
/// try await items.restore("sofa", to: 3)                       // a new change, synced to every device
/// ```
///
/// The server keeps every version younger than its history limit (30 days by default) and an
/// object's latest ones (60) whatever their age; older versions are gone, and asking for them
/// throws ``HistoryError/gone(_:)``.
extension Bucket {
    /// Up to `limit` of the object's retained versions before version `before` (from its
    /// current one when `nil`), newest first, its removal included; fewer when older ones are
    /// no longer retained. Page on with the oldest one's ``ObjectVersion/version`` as `before`.
    ///
    /// Throws ``HistoryError/notFound(_:)`` when the server has no such object.
    public func versions(of key: String, before: Int? = nil, limit: Int = 20) async throws -> [ObjectVersion] {
        var query = "limit=\(min(max(limit, 1), 100))"
        if let before { query += "&before=\(before)" }
        let answer = try await server.history("GET", bucket: name, "i/\(server.escape(key))/versions?\(query)")
        guard let versions = answer["versions"]?.arrayValue else {
            throw LockstepClientError.protocolViolation("a history without versions")
        }
        return try versions.map { try ObjectVersion(json: $0) }
    }

    /// Versions `from` and `to` of an object compared (`to` the current version when `nil`):
    /// the jsondiff between them, and each string that differs as a text diff.
    ///
    /// Throws ``HistoryError/gone(_:)`` for a version no longer retained and
    /// ``HistoryError/notFound(_:)`` for one that never was (or a removal, which holds no data).
    public func compare(_ key: String, from: Int, to: Int? = nil) async throws -> VersionComparison {
        let query = "from=\(from)" + (to.map { "&to=\($0)" } ?? "")
        return try VersionComparison(json: try await server.history("GET", bucket: name, "i/\(server.escape(key))/compare?\(query)"))
    }

    /// Puts the object back to one of its retained versions, as a new change this user makes on
    /// the server: every device receives it, and history shows it as a restore by this user.
    /// Returns the object's version afterwards (its current one when it already held that data).
    ///
    /// Edits not yet sent from this device are not lost: they rebase over the restore as over
    /// any change. Needs the right to write the bucket. Throws ``HistoryError/gone(_:)`` when
    /// the version is no longer retained or the object was removed (removed objects never come
    /// back), ``HistoryError/forbidden(_:)`` for a reader.
    @discardableResult
    public func restore(_ key: String, to version: Int) async throws -> Int {
        let path = "i/\(server.escape(key))/restore?clientid=\(server.escape(server.clientID))&ccid=\(OutboxRow.newChangeID())"
        let answer = try await server.history("POST", bucket: name, path, body: ["version": .integer(Int64(version))])
        guard let restored = answer["version"]?.integerValue else { throw LockstepClientError.protocolViolation("a restore without its version") }
        return Int(restored)
    }

    /// Puts every object of the bucket back as it was at `moment` (on the server's clock), as one
    /// group of changes the server commits together: objects made since are removed, objects
    /// removed since stay removed (and are listed). With `dryRun`, only says what would change.
    ///
    /// For the owners of a space's bucket, and the app's admin token; anyone else gets
    /// ``HistoryError/forbidden(_:)``. A moment older than the server's retained history throws
    /// ``HistoryError/gone(_:)``.
    @discardableResult
    public func restore(to moment: Date, dryRun: Bool = false) async throws -> BucketRestore {
        let at = Int64((moment.timeIntervalSince1970 * 1000).rounded(.down))
        let answer = try await server.history(
            "POST", bucket: name, "restore?clientid=\(server.escape(server.clientID))", body: ["at": .integer(at), "dryRun": .bool(dryRun)])
        guard let putBack = answer["putBack"]?.integerValue, let removed = answer["removed"]?.integerValue,
            let stayRemoved = answer["stayRemoved"]?.arrayValue
        else { throw LockstepClientError.protocolViolation("a restore without putBack, removed or stayRemoved: \(answer)") }
        var refused: [String: String] = [:]
        for entry in answer["refused"]?.arrayValue ?? [] {
            if let key = entry["id"]?.stringValue { refused[key] = entry["message"]?.stringValue ?? "" }
        }
        return BucketRestore(
            putBack: Int(putBack), removed: Int(removed), stayRemoved: stayRemoved.compactMap(\.stringValue), refused: refused,
            dryRun: answer["dryRun"] == true)
    }
}
