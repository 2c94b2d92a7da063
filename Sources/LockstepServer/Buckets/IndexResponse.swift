import LockstepCore

/// The index response both protocols share (`GET /index` and the streaming `i:`):
/// `{"current","index":[{"id","v","d"?}],"mark"?}`.
///
/// A walk lists every object that existed when it began, newest change first, each at its
/// version as of then (see ``IndexPage``). Every page of one walk reports the same `current`: the first
/// page takes the bucket's change version and its `mark` carries it to the next pages, so a
/// client that follows from `current` after the walk receives every change made while it was
/// walking, each against the version it indexed.
enum IndexResponse {
    /// One page, with what the streaming channel needs to know of it.
    struct Page {
        var json: JSONValue
        /// The walk's `current`.
        var current: ChangeVersion
        var isLast: Bool
    }

    /// One page of a bucket's index, continuing the walk `mark` names (`nil` starts a new walk).
    ///
    /// Throws a ``ChangeRejection/Reason/badRequest`` rejection for a mark this server did not give.
    static func page(
        of scope: BucketScope, in store: any SyncStore, mark: String?, changedAfter: Int64? = nil, limit: Int,
        includeData: Bool
    ) async throws -> Page {
        var walk: IndexMark?
        if let mark {
            guard let parsed = IndexMark(mark) else { throw ChangeRejection(.badRequest, "mark \(mark) is not one this server gave") }
            walk = parsed
        }
        let page = try await store.index(
            scope,
            IndexQuery(
                snapshot: walk?.snapshot.sequence, before: walk?.before, changedAfter: changedAfter, limit: limit,
                includeData: includeData))
        let current = walk?.snapshot ?? page.current
        return Page(json: json(page, current: current), current: current, isLast: page.nextBefore == nil)
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
        if let next = page.nextBefore {
            fields["mark"] = .string(IndexMark(snapshot: current, before: next).description)
        }
        return .object(fields)
    }
}

/// An index page's `mark`: the walk's snapshot version (24 hex digits) and the place the next
/// page starts below (16 hex digits).
struct IndexMark {
    var snapshot: ChangeVersion
    var before: Int64

    init(snapshot: ChangeVersion, before: Int64) {
        self.snapshot = snapshot
        self.before = before
    }

    init?(_ text: String) {
        guard text.utf8.count == 40, let snapshot = ChangeVersion(text.prefix(24)),
            let before = UInt64(text.suffix(16), radix: 16), before <= UInt64(Int64.max)
        else { return nil }
        self.init(snapshot: snapshot, before: Int64(before))
    }

    var description: String {
        let digits = String(UInt64(before), radix: 16)
        return snapshot.description + String(repeating: "0", count: 16 - digits.count) + digits
    }
}
