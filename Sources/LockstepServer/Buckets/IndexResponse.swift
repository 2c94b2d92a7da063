import LockstepCore

/// The index response both protocols share (`GET /index` and the streaming `i:`):
/// `{"current","index":[{"id","v","d"?}],"mark"?}`.
///
/// A walk lists every object that existed when it began, in key order, each at its version as
/// of then (see ``IndexPage``). Every page of one walk reports the same `current`: the first
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
                snapshot: walk?.snapshot.sequence, afterKey: walk?.afterKey, changedAfter: changedAfter, limit: limit,
                includeData: includeData))
        let current = walk?.snapshot ?? page.current
        return Page(json: json(page, current: current), current: current, isLast: page.nextAfterKey == nil)
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
        if let next = page.nextAfterKey {
            fields["mark"] = .string(IndexMark(snapshot: current, afterKey: next).description)
        }
        return .object(fields)
    }
}

/// An index page's `mark`: the walk's snapshot version (24 hex digits) followed by the key the
/// next page starts after. Keys never hold a `:`, so the mark fits an `i:` request as it is.
struct IndexMark {
    var snapshot: ChangeVersion
    var afterKey: String

    init(snapshot: ChangeVersion, afterKey: String) {
        self.snapshot = snapshot
        self.afterKey = afterKey
    }

    init?(_ text: String) {
        guard text.utf8.count > 24, let snapshot = ChangeVersion(text.prefix(24)) else { return nil }
        let key = String(text.dropFirst(24))
        guard EntityName.isValid(key) else { return nil }
        self.init(snapshot: snapshot, afterKey: key)
    }

    var description: String { snapshot.description + afterKey }
}
