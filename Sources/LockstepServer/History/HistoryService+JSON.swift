import LockstepCore

extension HistoryService.Page {
    /// `{"id","version","deleted","versions":[…],"before"?}`: the object now, its versions newest
    /// first (see ``VersionRecord/json(showingEmail:)``), and where an older page starts.
    func json(showingEmail: Bool) -> JSONObject {
        var body: JSONObject = [
            "id": .string(object.key), "version": .integer(Int64(object.version)), "deleted": .bool(object.isDeleted),
            "versions": .array(versions.map { .object($0.json(showingEmail: showingEmail)) }),
        ]
        if let before { body["before"] = .integer(Int64(before)) }
        return body
    }
}

extension HistoryService.BucketRestore {
    /// `{"bucket","at","dryRun","changes","putBack","removed","stayRemoved":[…],"refused":[{"id","code","message"}]}`:
    /// how many objects change (or changed), how, and which removed ones stay removed.
    func json(bucket: String) -> JSONObject {
        [
            "bucket": .string(bucket), "at": .integer(time / 1_000_000), "dryRun": .bool(dryRun),
            "changes": .integer(Int64(putBack.count + removed.count)), "putBack": .integer(Int64(putBack.count)),
            "removed": .integer(Int64(removed.count)), "stayRemoved": .array(stayRemoved.map(JSONValue.string)),
            "refused": .array(refused.map { key, rejection in
                ["id": .string(key), "code": .integer(Int64(rejection.code)), "message": .string(rejection.message)]
            }),
        ]
    }
}
