import LockstepCore
import LockstepServer

/// What a commit tells the other nodes through `NOTIFY`: where its changes are, never what they are.
///
/// One notification per app a group committed to, naming the run of the app's commit order the
/// group took: `{"n":node,"a":app,"f":first,"p":last}`, `"f"` left out when the run is one
/// change. A run of one change also names its bucket and feed position (`"o"`, `"b"`, `"s"`), so
/// that a listener with nobody in that bucket loads nothing; a longer run is read from the
/// database in commit order, a few queries per group rather than one per change.
///
/// It carries no data and no secrets, and stays under PostgreSQL's 8000-byte payload limit:
/// should the names ever make it longer, it drops the bucket and listeners read the change from
/// the database instead. A node older than runs reads `"p"` alone, sees the positions before it
/// as missing, and reads them from the database (logging a warning): mixed versions still agree.
struct ChangeNotification: Sendable, Equatable {
    struct Change: Sendable, Equatable {
        var scope: BucketScope
        var sequence: Int64
    }

    /// The ``PostgresStore/nodeID`` of the node that committed the changes.
    var node: String
    var appID: String
    /// The positions of the changes in their app's commit order (0...0 when the app has no row).
    var appSequences: ClosedRange<Int64>
    /// The bucket and feed position of a run of one change; `nil` for a longer run, or when they did not fit.
    var change: Change?

    static let maximumPayloadBytes = 7999

    init(node: String, appID: String, appSequences: ClosedRange<Int64>, change: Change?) {
        self.node = node
        self.appID = appID
        self.appSequences = appSequences
        self.change = appSequences.count == 1 ? change : nil
    }

    /// One change.
    init(node: String, appID: String, appSequence: Int64, scope: BucketScope, sequence: Int64) {
        self.init(node: node, appID: appID, appSequences: appSequence...appSequence, change: Change(scope: scope, sequence: sequence))
    }

    var payload: String {
        var fields: JSONObject = ["n": .string(node), "a": .string(appID), "p": .integer(appSequences.upperBound)]
        if appSequences.count > 1 { fields["f"] = .integer(appSequences.lowerBound) }
        if let change {
            fields["o"] = .string(change.scope.ownerKey)
            fields["b"] = .string(change.scope.bucket)
            fields["s"] = .integer(change.sequence)
            let full = JSONValue.object(fields).description
            if full.utf8.count <= Self.maximumPayloadBytes { return full }
            for name in ["o", "b", "s"] { fields[name] = nil }
        }
        return JSONValue.object(fields).description
    }

    /// Reads a parsed payload; `nil` for one that no Lockstep node wrote.
    init?(json: JSONValue) {
        guard let node = json["n"]?.stringValue, let appID = json["a"]?.stringValue, let last = json["p"]?.integerValue else { return nil }
        let first = json["f"]?.integerValue ?? last
        guard first <= last else { return nil }
        var change: Change?
        if let owner = json["o"]?.stringValue, let bucket = json["b"]?.stringValue, let sequence = json["s"]?.integerValue {
            change = Change(scope: BucketScope(appID: appID, ownerKey: owner, bucket: bucket), sequence: sequence)
        }
        self.init(node: node, appID: appID, appSequences: first...last, change: change)
    }
}

extension ChangeNotification {
    /// The notifications of a committed group, in commit order: a run per app, and one per
    /// change of an app without a row (whose changes have no order to name).
    static func of(_ changes: some Sequence<(scope: BucketScope, sequence: Int64, appSequence: Int64)>, node: String) -> [ChangeNotification] {
        var notifications: [ChangeNotification] = []
        var runs: [String: Int] = [:]
        for (scope, sequence, appSequence) in changes {
            guard appSequence > 0 else {
                notifications.append(ChangeNotification(node: node, appID: scope.appID, appSequence: 0, scope: scope, sequence: sequence))
                continue
            }
            if let index = runs[scope.appID] {
                // An app's changes in a group take consecutive positions, in the group's order.
                notifications[index].appSequences = notifications[index].appSequences.lowerBound...appSequence
                notifications[index].change = nil
            } else {
                runs[scope.appID] = notifications.count
                notifications.append(ChangeNotification(node: node, appID: scope.appID, appSequence: appSequence, scope: scope, sequence: sequence))
            }
        }
        return notifications
    }
}
