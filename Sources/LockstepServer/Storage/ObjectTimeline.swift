package import LockstepCore

/// The retained history of one object from some version on: that version's data and every
/// change after it, from which any version since can be rebuilt.
///
/// Stores keep an object's history compactly: the data of every ``Limits/snapshotInterval``-th
/// version (a snapshot) and the change that made each version, whose diff turns one version
/// into the next. A timeline is one snapshot (or the empty object before version 1) followed
/// by the changes after it, loaded for planning a change made against an older version and for
/// reading one (`e:`, `GET …/v/{n}`).
package struct ObjectTimeline: Sendable, Equatable {
    /// The version whose data ``baseData`` is: a snapshot's, or 0 (nothing) before the creation.
    package var baseVersion: Int
    package var baseData: JSONObject
    /// The changes that made versions `baseVersion + 1`, `baseVersion + 2`, …, in order.
    package private(set) var changes: [ChangeRecord]

    /// Builds a timeline; `nil` when the changes do not follow `baseVersion` one by one (a
    /// part of the history is no longer retained).
    package init?(baseVersion: Int, baseData: JSONObject, changes: [ChangeRecord]) {
        for (offset, change) in changes.enumerated() where change.endVersion != baseVersion + offset + 1 {
            return nil
        }
        self.baseVersion = baseVersion
        self.baseData = baseData
        self.changes = changes
    }

    /// A timeline that starts at an object's current version, with nothing before it.
    package init(current object: StoredObject) {
        baseVersion = object.version
        baseData = object.data
        changes = []
    }

    /// The latest version the timeline reaches.
    package var latestVersion: Int { baseVersion + changes.count }

    /// Whether `version` can be rebuilt from this timeline.
    package func reaches(_ version: Int) -> Bool {
        version >= baseVersion && version <= latestVersion
    }

    /// The data of `version`, rebuilt by applying the changes after the base in order; `nil`
    /// outside the timeline or for a removal's version.
    package func data(at version: Int) throws -> JSONObject? {
        guard reaches(version) else { return nil }
        var data = baseData
        for change in changes.prefix(version - baseVersion) {
            guard change.operation == .modify, let diff = change.diff else { return nil }
            data = try diff.apply(to: data)
        }
        return data
    }

    /// The data of every version from `first` through `last` that the timeline reaches (`nil`
    /// for a removal's), rebuilt in one pass: what a page of history shows.
    package func dataOfEach(from first: Int, through last: Int) throws -> [Int: JSONObject?] {
        var result: [Int: JSONObject?] = [:]
        var data: JSONObject? = baseData
        if reaches(first) && first == baseVersion { result[baseVersion] = data }
        for change in changes where change.endVersion <= last {
            if change.operation == .modify, let diff = change.diff, let before = data {
                data = try diff.apply(to: before)
            } else {
                data = nil
            }
            if change.endVersion >= first { result[change.endVersion] = data }
        }
        return result
    }

    /// The changes that made the versions after `version`, oldest first.
    package func changes(after version: Int) -> ArraySlice<ChangeRecord> {
        changes.dropFirst(max(0, version - baseVersion))
    }

    /// Extends the timeline with the change that made its next version.
    package mutating func append(_ change: ChangeRecord) {
        precondition(change.endVersion == latestVersion + 1, "a timeline grows one version at a time")
        changes.append(change)
    }
}
