import ArgumentParser
import LockstepClient

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sync with the server until nothing is left to send or receive; also fetches the job's peer key.")

    @OptionGroup var job: JobOptions
    @Option(help: "Give up after this many seconds.") var timeout = 60

    func run() async throws {
        let (client, items) = try job.open()
        await client.sync.start()
        do {
            try await client.sync.waitUntilIdle(timeout: .seconds(timeout))
            // Kept in the store, so that `inventory peer` works where there is no network.
            try await PeerSync(client: client, bucket: items.name, transport: LocalNetworkTransport()).prepare()
        } catch {
            await client.close()
            throw error
        }
        print("synced \(try items.list().count) item(s)")
        await client.close()
    }
}
