import LockstepCore

/// The index response both protocols share (`GET /index` and the streaming `i:`):
/// `{"current","index":[{"id","v","d"?}],"mark"?}`.
///
/// Every page of one walk reports the same `current`: the first page takes a snapshot of the
/// bucket's change version and its `mark` carries that snapshot to the next pages, so a client
/// that resumes from `current` after the walk receives every change made while it was walking.
enum IndexResponse {
    /// One page of a bucket's index, continuing the walk `mark` names (`nil` starts a new walk).
    ///
    /// Throws a ``ChangeRejection/Reason/badRequest`` rejection for a mark this server did not give.
    static func page(
        of scope: BucketScope, in store: any SyncStore, mark: String?, changedAfter: Int64? = nil, limit: Int,
        includeData: Bool
    ) async throws -> JSONValue {
        var snapshot: ChangeVersion?
        var after: IndexPosition?
        if let mark {
            guard let parsed = IndexMark(mark) else { throw ChangeRejection(.badRequest, "mark \(mark) is not one this server gave") }
            snapshot = parsed.snapshot
            after = IndexPosition(sequence: parsed.position, key: "")
        }
        let page = try await store.index(
            scope,
            IndexQuery(snapshot: snapshot?.sequence, after: after, changedAfter: changedAfter, limit: limit, includeData: includeData))
        return json(page, current: snapshot ?? page.current)
    }

    static func json(_ page: IndexPage, current: ChangeVersion) -> JSONValue {
        var fields: JSONObject = [
            "current": .string(current.description),
            "index": .array(page.entries.map { entry in
                var item: JSONObject = ["id": .string(entry.key), "v": .integer(Int64(entry.version))]
                if let data = entry.data { item["d"] = .object(data) }
                return .object(item)
            }),
        ]
        if let next = page.next {
            fields["mark"] = .string(IndexMark(snapshot: current, position: next.sequence).description)
        }
        return .object(fields)
    }
}

/// An index page's `mark`: the walk's snapshot version and where the next page starts.
struct IndexMark {
    var snapshot: ChangeVersion
    var position: Int64

    init(snapshot: ChangeVersion, position: Int64) {
        self.snapshot = snapshot
        self.position = position
    }

    init?(_ text: String) {
        guard text.utf8.count == 40, let snapshot = ChangeVersion(text.prefix(24)),
            let position = UInt64(text.suffix(16), radix: 16)
        else { return nil }
        self.init(snapshot: snapshot, position: Int64(truncatingIfNeeded: position))
    }

    var description: String {
        let digits = String(UInt64(position), radix: 16)
        return snapshot.description + String(repeating: "0", count: 16 - digits.count) + digits
    }
}
