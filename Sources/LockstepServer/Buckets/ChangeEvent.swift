public import LockstepCore

/// One accepted change, ready to announce.
public struct ChangeEvent: Sendable {
    public var scope: BucketScope
    public var change: ChangeRecord
    /// The bucket's change version after this change.
    public var version: ChangeVersion

    public init(scope: BucketScope, change: ChangeRecord, version: ChangeVersion) {
        self.scope = scope
        self.change = change
        self.version = version
    }

    /// The change as the streaming protocol and `GET /changes` send it:
    /// `{"clientid","id","o","v","sv","ev","cv","ccids"}`, with no `sv` for a creation, plus
    /// Lockstep's `t` (the edit time) when the client sent one: Lockstep clients rebase their
    /// pending edits over the change by the same merge rules the server applies.
    public var wireJSON: JSONValue {
        var fields: JSONObject = [
            "clientid": .string(change.clientID), "id": .string(change.key), "o": .string(change.operation.rawValue),
            "ev": .integer(Int64(change.endVersion)), "cv": .string(version.description), "ccids": [.string(change.changeID)],
        ]
        if let diff = change.diff { fields["v"] = diff.json }
        if let sourceVersion = change.sourceVersion { fields["sv"] = .integer(Int64(sourceVersion)) }
        if let editTime = change.editTime { fields["t"] = .integer(editTime) }
        return .object(fields)
    }

    /// ``wireJSON`` plus the extensions a client asks for (`"lockstep":1` in `init`,
    /// `?lockstep=1` over HTTP), which unmodified Simperium clients never see:
    /// `"fallback":"member-merge"` when the change's base version was no longer retained and it
    /// was merged member by member (see ``ChangePlanner``).
    public var extendedWireJSON: JSONValue {
        guard change.mergedWithoutBase, case .object(var fields) = wireJSON else { return wireJSON }
        fields["fallback"] = "member-merge"
        return .object(fields)
    }

    /// The change as a channel sends it: with Lockstep's extensions when the client asked for them.
    public func wireJSON(extensions: Bool) -> JSONValue {
        extensions ? extendedWireJSON : wireJSON
    }

    /// ``wireJSON(extensions:)`` as compact JSON, the same bytes ``JSONValue/jsonBytes`` gives,
    /// written directly: every change is encoded so, once for its announcements and once per
    /// catch-up, and building the object first (a dictionary, its names sorted) cost more than
    /// writing it.
    public func wireJSONBytes(extensions: Bool) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(160)
        func member(_ name: StaticString, first: Bool = false) {
            output.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            output.append(UInt8(ascii: "\""))
            output.appendLiteral(name)
            output.append(UInt8(ascii: "\""))
            output.append(UInt8(ascii: ":"))
        }
        // In the order of the names' UTF-8 bytes, as JSONSerializer writes objects.
        member("ccids", first: true)
        output.append(UInt8(ascii: "["))
        JSONSerializer.appendString(change.changeID, to: &output)
        output.append(UInt8(ascii: "]"))
        member("clientid")
        JSONSerializer.appendString(change.clientID, to: &output)
        member("cv")
        output.append(UInt8(ascii: "\""))
        version.appendDigits(to: &output)
        output.append(UInt8(ascii: "\""))
        member("ev")
        output.appendDecimal(Int64(change.endVersion))
        if extensions && change.mergedWithoutBase {
            member("fallback")
            output.appendLiteral(#""member-merge""#)
        }
        member("id")
        JSONSerializer.appendString(change.key, to: &output)
        member("o")
        JSONSerializer.appendString(change.operation.rawValue, to: &output)
        if let sourceVersion = change.sourceVersion {
            member("sv")
            output.appendDecimal(Int64(sourceVersion))
        }
        if let editTime = change.editTime {
            member("t")
            output.appendDecimal(editTime)
        }
        if let diff = change.diff {
            member("v")
            diff.appendJSON(to: &output)
        }
        output.append(UInt8(ascii: "}"))
        return output
    }
}
