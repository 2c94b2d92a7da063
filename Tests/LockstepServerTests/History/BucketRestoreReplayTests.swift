import Foundation
import LockstepCore
@testable import LockstepServer
import PropertyBased
import Testing

/// A bucket restored to a moment holds, object by object, what its change feed replayed up to
/// that moment holds, except what was removed since (removed objects never come back): on both
/// stores, for generated histories of creations, edits and removals committed in groups.
@Suite("History: a bucket restored to a moment is its feed replayed to it", .timeLimit(.minutes(5)))
struct BucketRestoreReplayTests {
    /// One change of a generated history: an object set to a value, or removed.
    struct Step: Sendable, CustomStringConvertible {
        var key: Int
        var remove: Bool
        var value: Int

        var description: String { remove ? "-k\(key)" : "k\(key)=\(value)" }
    }

    /// Groups of changes, committed one second apart, and the moment: after the first `moment` groups.
    struct History: Sendable, CustomStringConvertible {
        var groups: [[Step]]
        var moment: Int

        var description: String { "\(groups), restored to after group \(moment)" }
    }

    static let histories = Generator { rng in
        let groups = (0..<Int.random(in: 1...10, using: &rng)).map { _ in
            (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                Step(key: Int.random(in: 0..<6, using: &rng), remove: Int.random(in: 0..<6, using: &rng) == 0, value: Int.random(in: 0..<3, using: &rng))
            }
        }
        return History(groups: groups, moment: Int.random(in: 0...groups.count, using: &rng))
    }

    @Test(arguments: StoreKind.allCases)
    func aRestoredBucketIsItsFeedReplayedToTheMoment(_ kind: StoreKind) async throws {
        try await TestServer.with(kind) { server in
            await propertyCheck(count: 40, input: Self.histories) { history in
                // Recorded, not thrown: propertyCheck drops what its body throws.
                do { try await Self.check(history, on: server) } catch { Issue.record(error, "\(history)") }
            }
        }
    }

    static func check(_ history: History, on server: TestServer) async throws {
        let store = server.services.store
        let scope = BucketScope(appID: server.appID, owner: .shared, bucket: "b-\(UUID().uuidString.prefix(8).lowercased())")
        var positions: [Int64] = []
        for (index, group) in history.groups.enumerated() {
            let requests = group.enumerated().map { offset, step in
                ChangeRequest(
                    scope: scope,
                    change: IncomingChange(
                        key: "k\(step.key)", changeID: "g\(index)-\(offset)", clientID: "device-\(offset % 2)",
                        operation: step.remove ? .remove : .modify(diff: nil, fullData: ["k": .integer(Int64(step.key)), "v": .integer(Int64(step.value))]),
                        sourceVersion: nil, editTime: Int64(index)),
                    author: .user("u\(offset % 2)"))
            }
            // Refusals (an object set to what it holds, a removal of what is not there) are part of the history too.
            _ = try await store.commit(ChangeGroup(requests: requests, time: Int64(index + 1) * 1_000_000_000, limits: Limits()))
            positions.append(try await store.currentVersion(of: scope).sequence)
        }
        let moment = Int64(history.moment) * 1_000_000_000 + 500_000_000
        let position = history.moment == 0 ? 0 : positions[history.moment - 1]

        // The feed replayed up to the moment: the objects that existed then.
        let epoch = try await store.currentVersion(of: scope).epoch
        let feed = try #require(try await store.feed(scope, after: ChangeVersion(epoch: epoch, sequence: 0), limit: 1_000))
        var replayed: [String: JSONObject] = [:]
        for change in feed where change.sequence <= position {
            if change.operation == .remove {
                replayed[change.key] = nil
            } else {
                replayed[change.key] = try #require(change.diff).apply(to: replayed[change.key] ?? [:])
            }
        }
        var removedSince: Set<String> = []
        for key in replayed.keys where try await store.object(scope, key: key)?.isDeleted == true { removedSince.insert(key) }

        let planned = try await server.services.history.restoreBucket(scope, at: moment, dryRun: true, by: .admin, clientID: "office")
        let done = try await server.services.history.restoreBucket(scope, at: moment, dryRun: false, by: .admin, clientID: "office")
        #expect(planned.putBack == done.putBack && planned.removed == done.removed, "the dry run said what the restore did: \(history)")
        #expect(Set(done.stayRemoved) == removedSince && done.refused.isEmpty, "\(history)")
        for key in Set(feed.map(\.key)) {
            let object = try #require(try await store.object(scope, key: key))
            if let data = replayed[key], !removedSince.contains(key) {
                #expect(!object.isDeleted && object.data == data, "\(key) is as it was at the moment: \(history)")
            } else {
                #expect(object.isDeleted, "\(key) did not exist at the moment, or was removed since: \(history)")
            }
        }
        // A second restore to the same moment finds nothing left to change.
        let again = try await server.services.history.restoreBucket(scope, at: moment, dryRun: true, by: .admin, clientID: "office")
        #expect(again.putBack.isEmpty && again.removed.isEmpty, "\(history)")
    }
}
