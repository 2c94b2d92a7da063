import ArgumentParser
import LockstepClient

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sync with the server until nothing is left to send or receive; also fetches the job's peer key.")

    @OptionGroup var job: JobOptions
    @Option(help: "Give up after this many seconds.") var timeout = 60

    func run() async throws {
        let (client, items) = try job.open()
        let held = try items.list().count
        // The SDK says why a job went away on each item it drops: heard here before syncing
        // starts, so that no such event is missed.
        let events = items.events
        let reasonForLeaving = Task { () -> String? in
            for await event in events {
                if case .revoked(let message) = event.origin { return message }
            }
            return nil
        }
        let stillOnJob: Bool
        do {
            await client.sync.start()
            try await client.sync.waitUntilIdle(timeout: .seconds(timeout))
            // A job this user lost is no longer among the buckets the store syncs.
            stillOnJob = try client.bucketNames.contains(items.name)
            // A peer key is a writer's: a reader (the customer) follows the job through the server.
            let role = stillOnJob ? try await client.spaces.first { $0.name == job.spaceName }?.role : nil
            if stillOnJob && role != .reader {
                // Kept in the store, so that `inventory peer` works where there is no network.
                try await PeerSync(client: client, bucket: items.name, transport: LocalNetworkTransport()).prepare()
            }
            try await reportRefusedChanges(client)
        } catch {
            await client.close()
            throw error
        }
        let count = try items.list().count
        await client.close()  // ends the events, so the reason is in hand if it was given
        guard stillOnJob else {
            let reason = await reasonForLeaving.value ?? "you are not on job \(job.job)"
            let dropped = held > 0 ? ", and dropped its \(held) item(s)" : ""
            throw OffTheJob(message: "\(reason): this phone no longer receives job \(job.job)\(dropped)")
        }
        reasonForLeaving.cancel()
        print("synced \(count) item(s)")
    }

    /// Edits the server refused (a reader's, or made offline by a mover since taken off the
    /// job) are shown once, then cleared: never dropped without the mover knowing.
    private func reportRefusedChanges(_ client: LockstepClient) async throws {
        let refused = try client.outbox.rejected
        for change in refused {
            guard case .rejected(let code, let message) = change.status else { continue }
            print("not saved: \(change.operation == .remove ? "deleting" : "editing") \(change.key) (\(code): \(message ?? "refused"))")
        }
        if !refused.isEmpty { try await client.outbox.dismissRejected() }
    }
}

/// This mover was taken off the job (or it was deleted): said as the command's error, so that
/// a script sees it in the exit status too.
struct OffTheJob: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
