import Synchronization

/// The names of spaces by id, as a store learns them for webhook events: a space's id names
/// one space for ever (made again under the same name, a space has a new id), so a name once
/// read stays right, and each is read once.
package final class SpaceNameCache: Sendable {
    private let names = Mutex<[SpaceKey: String]>([:])
    /// Spaces remembered at most; past it the cache starts again.
    private static let capacity = 100_000

    package init() {}

    /// The names known of `spaces`, and those not known.
    package func lookUp(_ spaces: Set<SpaceKey>) -> (known: [SpaceKey: String], unknown: [SpaceKey]) {
        names.withLock { names in
            var known: [SpaceKey: String] = [:]
            var unknown: [SpaceKey] = []
            for space in spaces {
                if let name = names[space] { known[space] = name } else { unknown.append(space) }
            }
            return (known, unknown)
        }
    }

    package func remember(_ found: [SpaceKey: String]) {
        names.withLock { names in
            if names.count + found.count > Self.capacity { names.removeAll() }
            names.merge(found) { _, new in new }
        }
    }
}
