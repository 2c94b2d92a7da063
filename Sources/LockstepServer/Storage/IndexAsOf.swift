package import LockstepCore

/// How an index walk lists a bucket as it stood at the walk's snapshot, newest change first,
/// whatever changes between its pages: the rules both stores apply (see ``IndexPage``).
///
/// Each object that existed at the snapshot has a place in the walk: the feed sequence of its
/// last change at or before the snapshot. For an object unchanged since, that is its latest
/// change; for one changed since, its history says. Pages follow places downwards, so nothing
/// moves between pages and every object is listed once.
package enum IndexAsOf {
    /// One object a page may list, at its place.
    package struct Candidate: Sendable {
        package var place: Int64
        package var entry: IndexPage.Entry

        package init(place: Int64, entry: IndexPage.Entry) {
            self.place = place
            self.entry = entry
        }
    }

    /// The place and version as of the snapshot of an object changed since; `nil` when it is
    /// not listed (it did not exist at the snapshot, or was removed by then).
    ///
    /// - Parameters:
    ///   - lastChange: the object's last change at or before the snapshot, if the store still has it.
    ///   - historyFrom: the oldest version the store can rebuild (0: from its creation).
    ///   - current: the object's latest version, and whether that is a removal.
    package static func place(
        lastChange: (sequence: Int64, version: Int, isRemoval: Bool)?, historyFrom: Int, current: (version: Int, isDeleted: Bool)
    ) -> (place: Int64, version: Int)? {
        if let lastChange { return lastChange.isRemoval ? nil : (lastChange.sequence, lastChange.version) }
        // No change at or before the snapshot: the object was created after it, unless that
        // part of its history was pruned; then its latest version stands in, at the walk's end.
        guard historyFrom > 0, !current.isDeleted else { return nil }
        return (0, current.version)
    }

    /// The page: the candidates unchanged since the snapshot (newest first, at most `limit + 1`
    /// of them) and those changed since, merged by place, newest first; and the place the next
    /// page starts below, `nil` after the last. Objects whose place history no longer says
    /// (place 0) all come on the last page.
    package static func page(unchanged: [Candidate], changed: [Candidate], limit: Int) -> (entries: [Candidate], nextBefore: Int64?) {
        let merged = (unchanged + changed).sorted { $0.place > $1.place }
        let hasMore = merged.count > limit && merged[limit].place > 0
        guard hasMore else { return (merged, nil) }
        let page = Array(merged.prefix(limit))
        return (page, page.last?.place)
    }

    /// A listed object with its data, for a page that carries data: the data of the version the
    /// walk lists it at when that can be rebuilt, else its latest version standing in; `nil`
    /// when it is gone (removed since, and that version not rebuilt).
    package static func withData(_ entry: IndexPage.Entry, rebuilt: JSONObject?, latest object: StoredObject?) -> IndexPage.Entry? {
        guard let object else { return nil }
        if let rebuilt { return IndexPage.Entry(key: entry.key, version: entry.version, data: rebuilt) }
        guard !object.isDeleted else { return nil }
        return IndexPage.Entry(key: entry.key, version: object.version, data: object.data)
    }

    /// The candidate a page may list for an object changed since the snapshot, at its place as
    /// of the snapshot; `nil` when it is not listed, or its place is outside `query`'s range.
    package static func changedCandidate(
        key: String, lastChange: (sequence: Int64, version: Int, isRemoval: Bool)?, historyFrom: Int,
        current: (version: Int, isDeleted: Bool), query: IndexQuery
    ) -> Candidate? {
        guard let (place, version) = place(lastChange: lastChange, historyFrom: historyFrom, current: current),
            place < query.before ?? .max, place > query.changedAfter ?? -1
        else { return nil }
        return Candidate(place: place, entry: IndexPage.Entry(key: key, version: version, data: nil))
    }
}
