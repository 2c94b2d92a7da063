package import LockstepCore

/// What putting a bucket back to a moment changes, decided from the bucket as it stood then
/// (``BucketMoment``): pure, so a dry run and the restore itself plan alike.
///
/// Each object changed since the moment is, as far as the merge rules allow, put back:
/// - one that existed then and exists now, with other data: its data then, as a new change;
/// - one made after the moment: removed;
/// - one that existed then and was removed since: stays removed (a removed object never comes
///   back), and is listed;
/// - one removed by then, or made and removed since, or with its data as it was: nothing.
package struct BucketRestorePlan: Sendable, Equatable {
    package enum Step: Sendable, Equatable {
        /// Sets the object's data to what version `from` held, as a change against `version`.
        case putBack(key: String, data: JSONObject, version: Int, from: Int)
        /// Removes an object made after the moment, as a change against `version`.
        case remove(key: String, version: Int)

        package var key: String {
            switch self {
            case .putBack(let key, _, _, _), .remove(let key, _): key
            }
        }
    }

    /// The changes, in key order.
    package var steps: [Step] = []
    /// Objects that existed at the moment and were removed since, in key order.
    package var stayRemoved: [String] = []
    /// Objects whose version at the moment is no longer retained: the bucket cannot be put back.
    package var notRetained: [String] = []

    package init(_ moment: BucketMoment) {
        for object in moment.changed {
            switch object.then {
            case .notRetained:
                notRetained.append(object.key)
            case .absent where !object.isDeleted:
                steps.append(.remove(key: object.key, version: object.version))
            case .present where object.isDeleted:
                stayRemoved.append(object.key)
            case .present(let version, let data) where data != object.data:
                steps.append(.putBack(key: object.key, data: data, version: object.version, from: version))
            case .absent, .present, .removed:
                continue
            }
        }
    }

    package var putBack: Int { steps.count { if case .putBack = $0 { true } else { false } } }
    package var removed: Int { steps.count - putBack }
}
