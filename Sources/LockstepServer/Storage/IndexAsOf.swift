/// Which version of an object an index walk lists when the object changed after the walk's
/// snapshot (see ``IndexPage``): the rule both stores apply.
package enum IndexAsOf {
    /// The version to list; `nil` when the object is not listed (it did not exist at the
    /// snapshot, or was removed by then).
    ///
    /// - Parameters:
    ///   - lastChange: the object's last change at or before the snapshot, if the store still has it.
    ///   - historyFrom: the oldest version the store can rebuild (0: from its creation).
    ///   - current: the object's latest version, and whether that is a removal.
    package static func version(lastChange: (version: Int, isRemoval: Bool)?, historyFrom: Int, current: (version: Int, isDeleted: Bool))
        -> Int?
    {
        if let lastChange { return lastChange.isRemoval ? nil : lastChange.version }
        // No change at or before the snapshot: the object was created after it, unless that
        // part of its history was pruned, when its latest version stands in.
        guard historyFrom > 0, !current.isDeleted else { return nil }
        return current.version
    }
}
