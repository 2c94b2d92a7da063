import LockstepCore

/// The webhook events of a group's committed changes, recorded by the store in the group's own
/// transaction: so no change is acknowledged without its events, and none is recorded for a
/// change that did not commit.
///
/// A change is a `change` event when an endpoint of its app wants that for its bucket, and a
/// purchase (``ChangeRequest/isPurchase``) is a `purchase` event as well when one wants that.
/// Each event's `data` is written here, once, as compact JSON:
///
/// ```json
/// {"app":"…","author":{"client":"phone-1","user":"5f2c…"},"bucket":"items","ccid":"c-17",
///  "committedAt":1795740145774,"diff":{"room":{"o":"+","v":"lounge"}},"id":"sofa","operation":"modify",
///  "owner":{"kind":"space","name":"job-1234"},"value":{"room":"lounge"},"version":3}
/// ```
///
/// `owner` is `{"kind":"user","id":…}`, `{"kind":"space","name":…}` or `{"kind":"shared"}`; a
/// removal has `"operation":"remove"` and no `value`; `author.user` is `null` for changes the
/// admin token or the server made; `committedAt` is the commit's server time in milliseconds.
package enum ChangeEvents {
    /// The spaces whose names the group's events need (their buckets' events may be wanted):
    /// a store looks up those it has not cached before ``records(_:_:interest:spaceNames:)``.
    package static func spacesNamed(by writes: GroupWrites, interest: [String: WebhookInterest.App]) -> Set<SpaceKey> {
        var spaces = Set<SpaceKey>()
        for accepted in writes.accepted {
            guard interest[accepted.scope.appID] != nil, case .space(let id) = accepted.scope.owner else { continue }
            spaces.insert(SpaceKey(appID: accepted.scope.appID, spaceID: id))
        }
        return spaces
    }

    /// The events of the group's changes, in commit order; empty when no endpoint wants any.
    /// - Parameter spaceNames: the name of each space of ``spacesNamed(by:interest:)`` that
    ///   still exists.
    package static func records(
        _ writes: GroupWrites, _ group: ChangeGroup, interest: [String: WebhookInterest.App], spaceNames: [SpaceKey: String]
    ) -> [WebhookEventRecord] {
        var records: [WebhookEventRecord] = []
        for accepted in writes.accepted {
            guard let app = interest[accepted.scope.appID] else { continue }
            let scope = accepted.scope
            var spaceName: String?
            if case .space(let id) = scope.owner {
                // A space deleted in the meantime has no members left to tell.
                guard let name = spaceNames[SpaceKey(appID: scope.appID, spaceID: id)] else { continue }
                spaceName = name
            }
            let visibleBucket = spaceName.map { SpaceBucketName(space: $0, bucket: scope.bucket).description } ?? scope.bucket
            let request = group.requests[accepted.request]
            var types: [WebhookEventType] = []
            if app.wants(.change, bucket: visibleBucket) { types.append(.change) }
            if request.isPurchase, app.wants(.purchase, bucket: visibleBucket) { types.append(.purchase) }
            guard !types.isEmpty else { continue }
            let payload = self.payload(accepted, spaceName: spaceName, author: request.author, committedAt: group.time)
            for (step, type) in types.enumerated() {
                records.append(WebhookEventRecord(
                    appID: scope.appID, position: WebhookPosition(sequence: accepted.appSequence, step: Int64(step)), type: type,
                    bucket: visibleBucket, createdAt: group.time, payload: payload))
            }
        }
        return records
    }

    /// The `data` of a change's event (see ``ChangeEvents``), its members in the order of their names.
    static func payload(_ accepted: GroupWrites.Accepted, spaceName: String?, author: ChangeAuthor, committedAt: Int64) -> String {
        let change = accepted.change
        var output: [UInt8] = []
        output.reserveCapacity(256 + accepted.storedData.utf8.count)
        output.appendLiteral(#"{"app":"#)
        JSONSerializer.appendString(accepted.scope.appID, to: &output)
        output.appendLiteral(#","author":{"client":"#)
        JSONSerializer.appendString(change.clientID, to: &output)
        output.appendLiteral(#","user":"#)
        if case .user(let id) = author { JSONSerializer.appendString(id, to: &output) } else { output.appendLiteral("null") }
        output.appendLiteral(#"},"bucket":"#)
        JSONSerializer.appendString(accepted.scope.bucket, to: &output)
        output.appendLiteral(#","ccid":"#)
        JSONSerializer.appendString(change.changeID, to: &output)
        output.appendLiteral(#","committedAt":"#)
        output.appendDecimal(committedAt / 1_000_000)
        if let diff = change.diff {
            output.appendLiteral(#","diff":"#)
            diff.appendJSON(to: &output)
        }
        output.appendLiteral(#","id":"#)
        JSONSerializer.appendString(change.key, to: &output)
        output.appendLiteral(change.operation == .remove ? #","operation":"remove""# : #","operation":"modify""#)
        output.appendLiteral(#","owner":"#)
        switch accepted.scope.owner {
        case .user(let id):
            output.appendLiteral(#"{"id":"#)
            JSONSerializer.appendString(id, to: &output)
            output.appendLiteral(#","kind":"user"}"#)
        case .space:
            output.appendLiteral(#"{"kind":"space","name":"#)
            JSONSerializer.appendString(spaceName ?? "", to: &output)
            output.append(UInt8(ascii: "}"))
        case .shared:
            output.appendLiteral(#"{"kind":"shared"}"#)
        }
        if change.operation != .remove {
            // The stored text is compact JSON already: the value is not written a second time.
            output.appendLiteral(#","value":"#)
            output.append(contentsOf: accepted.storedData.utf8)
        }
        output.appendLiteral(#","version":"#)
        output.appendDecimal(Int64(change.endVersion))
        output.append(UInt8(ascii: "}"))
        return String(decoding: output, as: UTF8.self)
    }
}

/// A space of an app, by id.
package struct SpaceKey: Sendable, Hashable {
    package var appID: String
    package var spaceID: String

    package init(appID: String, spaceID: String) {
        self.appID = appID
        self.spaceID = spaceID
    }
}
