import LockstepCore
import LockstepServer

/// What a change to a space's members tells the other nodes through `NOTIFY`, on the channel
/// changes are announced on, so that a member loses their channels on every node.
///
/// The payload is `{"k":"space","n":node,"a":app,"s":space,"i":space id,"u":user?,"c":cause,"e":epoch?}`:
/// names and ids only, never data or secrets. `"k"` tells it from a ``ChangeNotification``.
struct SpaceNotification: Sendable, Equatable {
    /// The ``PostgresStore/nodeID`` of the node that committed it (which enforced it already).
    var node: String
    var revocation: SpaceRevocation

    var payload: String {
        var fields: JSONObject = [
            "k": "space", "n": .string(node), "a": .string(revocation.appID), "s": .string(revocation.space),
            "i": .string(revocation.spaceID), "c": .string(revocation.cause.rawValue),
        ]
        if let userID = revocation.userID { fields["u"] = .string(userID) }
        if let epoch = revocation.epoch { fields["e"] = .integer(epoch) }
        return JSONValue.object(fields).description
    }

    /// Reads a parsed payload; `nil` for anything else (a change's notification among them).
    init?(json: JSONValue) {
        guard json["k"] == "space", let node = json["n"]?.stringValue,
            let appID = json["a"]?.stringValue, let space = json["s"]?.stringValue, let spaceID = json["i"]?.stringValue,
            let cause = json["c"]?.stringValue.flatMap(SpaceRevocation.Cause.init(rawValue:))
        else { return nil }
        self.init(
            node: node,
            revocation: SpaceRevocation(
                appID: appID, space: space, spaceID: spaceID, userID: json["u"]?.stringValue, cause: cause, epoch: json["e"]?.integerValue))
    }

    init(node: String, revocation: SpaceRevocation) {
        self.node = node
        self.revocation = revocation
    }
}
