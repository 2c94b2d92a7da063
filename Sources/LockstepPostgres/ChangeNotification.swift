import LockstepCore
import LockstepServer

/// What a commit tells the other nodes through `NOTIFY`: where the change is, never what it is.
///
/// The payload is a small JSON object, `{"n":node,"a":app,"p":appSequence,"o":owner,"b":bucket,"s":sequence}`.
/// It carries no data and no secrets (a listener loads the change from the database), and stays
/// under PostgreSQL's 8000-byte payload limit: should the names ever make it longer, it drops
/// the bucket (`o`, `b`, `s`) and listeners catch up on the app's changes from the database instead.
struct ChangeNotification: Sendable, Equatable {
    struct Change: Sendable, Equatable {
        var scope: BucketScope
        var sequence: Int64
    }

    /// The ``PostgresStore/nodeID`` of the node that committed the change.
    var node: String
    var appID: String
    /// The change's position in its app's commit order (0 when the app has no row).
    var appSequence: Int64
    /// The bucket and feed position of the change; `nil` when they did not fit.
    var change: Change?

    static let maximumPayloadBytes = 7999

    init(node: String, appID: String, appSequence: Int64, change: Change?) {
        self.node = node
        self.appID = appID
        self.appSequence = appSequence
        self.change = change
    }

    init(node: String, appID: String, appSequence: Int64, scope: BucketScope, sequence: Int64) {
        self.init(node: node, appID: appID, appSequence: appSequence, change: Change(scope: scope, sequence: sequence))
    }

    var payload: String {
        var fields: JSONObject = ["n": .string(node), "a": .string(appID), "p": .integer(appSequence)]
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
        guard let node = json["n"]?.stringValue, let appID = json["a"]?.stringValue, let appSequence = json["p"]?.integerValue else { return nil }
        var change: Change?
        if let owner = json["o"]?.stringValue, let bucket = json["b"]?.stringValue, let sequence = json["s"]?.integerValue {
            change = Change(scope: BucketScope(appID: appID, ownerKey: owner, bucket: bucket), sequence: sequence)
        }
        self.init(node: node, appID: appID, appSequence: appSequence, change: change)
    }
}
