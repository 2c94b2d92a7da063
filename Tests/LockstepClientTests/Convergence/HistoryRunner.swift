import Foundation
@testable import LockstepClient
import LockstepCore
import Synchronization

/// Plays a history on a fresh cluster and checks where it ends.
enum HistoryRunner {
    /// What one run did and found.
    struct Outcome: Sendable {
        var problems: [String]
        /// Steps that did something (an edit of an object its device did not have does nothing).
        var applied = 0
        var faults = Faults()
        var duration: Duration = .zero

        var failed: Bool { !problems.isEmpty }
    }

    struct Faults: Sendable {
        var restarts = 0
        var serverKills = 0
        /// Server kills while some device had changes on their way.
        var serverKillsMidSync = 0
        var clientKills = 0
        var offlinePeriods = 0
        var peerMeetings = 0
    }

    /// Plays `history`; once every device is idle, waits up to `patience` for all to agree.
    /// Throws ``RunStuck`` when a step, a part of the end or the whole run goes past its limit
    /// (``RunWatch``): the report names the seed, the step and what it waited for.
    static func run(_ history: History, on backend: ConvergenceBackend, patience: Duration = .seconds(60)) async throws -> Outcome {
        let watch = RunWatch(
            "convergence \(backend) seed \(history.seed) (replay: LOCKSTEP_CONVERGENCE_SEED=\(history.seed) LOCKSTEP_CONVERGENCE_SEEDS=1)",
            limit: RunWatch.seedLimit(steps: history.steps.count))
        return try await watched(by: watch) { try await play(history, on: backend, patience: patience, watch: watch) }
    }

    private static func play(_ history: History, on backend: ConvergenceBackend, patience: Duration, watch: RunWatch) async throws -> Outcome {
        let started = ContinuousClock.now
        watch.begin("starting the cluster", within: RunWatch.startLimit)
        let cluster = try await ConvergenceCluster.start(backend, watch: watch)
        var outcome = Outcome(problems: [])
        var oracle = ConvergenceOracle()
        do {
            for step in history.steps {
                watch.begin("step \(step)", within: RunWatch.stepLimit)
                if try await perform(step, on: cluster, oracle: &oracle, faults: &outcome.faults) { outcome.applied += 1 }
            }
            let end = await cluster.settle(patience: patience)
            outcome.problems = end.problems + oracle.problems(devices: end.devices, servers: end.servers, feedChangeIDs: end.feed)
        } catch {
            outcome.problems = ["the run stopped: \(error)"]
        }
        await cluster.stop()
        outcome.duration = ContinuousClock.now - started
        return outcome
    }

    /// Performs `step`; `false` when it did nothing.
    private static func perform(_ step: Step, on cluster: ConvergenceCluster, oracle: inout ConvergenceOracle, faults: inout Faults) async throws -> Bool {
        switch step.action {
        case .create(let device, let key):
            cluster.devices[device].times.set(step.time)
            let object: JSONObject = ["n": .integer(step.value), "m": .integer(-step.value), "tags": [.integer(step.value)], "text": ""]
            try await cluster.bucket(device).put(key, object)
            oracle.recordCreate(key: key, step: step.index)
            try await recordStamps(of: device, key: key, before: [:], after: object, step: step, cluster: cluster, oracle: &oracle)
        case .replace(let device, let key, let dropTags):
            let value = step.value
            return try await edit(device, key, step: step, cluster: cluster, oracle: &oracle) { object in
                object["n"] = .integer(value)
                object["m"] = .integer(-value)
                object["tags"] = dropTags ? nil : [.integer(value), .integer(value)]
            }
        case .edit(let device, let key, let member, let value):
            return try await edit(device, key, step: step, cluster: cluster, oracle: &oracle) { object in
                object[member] = value.map { member == "tags" ? [.integer($0)] : .integer($0) }
            }
        case .insert(let device, let key, let at):
            let token = step.token
            let done = try await edit(device, key, step: step, cluster: cluster, oracle: &oracle) { object in
                var tokens = ConvergenceOracle.tokens(in: object["text"]?.stringValue ?? "").tokens
                tokens.insert(token, at: Int((Double(tokens.count) * at).rounded()))
                object["text"] = .string(tokens.map { "[\($0)]" }.joined())
            }
            if done { oracle.recordToken(token, key: key) }
            return done
        case .delete(let device, let key):
            cluster.devices[device].times.set(step.time)
            guard try cluster.bucket(device).get(key) != nil else { return false }
            do {
                try await cluster.bucket(device).delete(key)
            } catch LockstepClientError.notFound, LockstepClientError.removed {
                return false
            }
            oracle.recordDelete(key: key, step: step.index)
        case .offline(let device):
            guard cluster.devices[device].online else { return false }
            await cluster.setOnline(device, false)
            faults.offlinePeriods += 1
        case .online(let device):
            guard !cluster.devices[device].online else { return false }
            await cluster.setOnline(device, true)
        case .meet:
            try await cluster.meet()
            faults.peerMeetings += 1
        case .pause(let milliseconds):
            try await Task.sleep(for: .milliseconds(milliseconds))
        case .restartServer(let node):
            try await cluster.restart(node: node, kill: false)
            faults.restarts += 1
        case .killServer(let node, let after):
            try await Task.sleep(for: .milliseconds(after))
            let pending = try cluster.devices.filter(\.online).reduce(0) { $0 + (try $1.client.outbox.pending.count) }
            try await cluster.restart(node: node, kill: true)
            faults.serverKills += 1
            if pending > 0 { faults.serverKillsMidSync += 1 }
        case .killClient(let device, let after):
            try await cluster.killClientProcess(device, after: after)
            faults.clientKills += 1
        }
        return true
    }

    /// Edits `key` on `device` through `change`, at the step's time, and records the edit with
    /// the stamp its device gave it; `false` when the device does not have the object.
    private static func edit(
        _ device: Int, _ key: String, step: Step, cluster: ConvergenceCluster, oracle: inout ConvergenceOracle,
        _ change: @Sendable @escaping (inout JSONObject) -> Void
    ) async throws -> Bool {
        cluster.devices[device].times.set(step.time)
        // What the edit saw and made, caught inside its transaction.
        let seen = EditCapture()
        do {
            try await cluster.bucket(device).update(key) { object in
                let before = object
                change(&object)
                seen.value.withLock { $0 = (before, object) }
            }
        } catch LockstepClientError.notFound, LockstepClientError.removed {
            return false
        }
        guard let (before, after) = seen.value.withLock({ $0 }) else { return false }
        try await recordStamps(of: device, key: key, before: before, after: after, step: step, cluster: cluster, oracle: &oracle)
        return true
    }

    private static func recordStamps(
        of device: Int, key: String, before: JSONObject, after: JSONObject, step: Step, cluster: ConvergenceCluster,
        oracle: inout ConvergenceOracle
    ) async throws {
        let replica = cluster.devices[device].client.replica
        let stamps = try await replica.database.read { db in try MemberStamps.all(db, ConvergenceCluster.bucket, key) }
        oracle.recordEdit(key: key, before: before, after: after, stamps: stamps, clientID: replica.clientID, step: step.index)
    }
}

/// What an edit's transaction saw and made.
private final class EditCapture: Sendable {
    let value = Mutex<(before: JSONObject, after: JSONObject)?>(nil)
}
