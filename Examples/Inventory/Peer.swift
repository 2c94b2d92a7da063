import ArgumentParser
import Foundation
import LockstepClient

struct Peer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sync with teammates' phones on the same network, no server needed; prints what arrives.")

    @OptionGroup var job: JobOptions
    @Option(help: "The TCP port to accept teammates on (0: any free port).") var port = 0
    @Option(help: "A teammate to dial as host:port, where multicast does not reach; repeat for several.") var connect: [String] = []
    @Flag(help: "Do not announce this phone or listen for announcements (UDP multicast).") var noMulticast = false
    @Option(help: "Stop after this many seconds (0: run until interrupted).") var seconds = 0

    func run() async throws {
        let (client, items) = try job.open()
        let peers = try connect.map { address in
            guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
                throw ValidationError("\(address) is not host:port")
            }
            return (host: String(address[..<colon]), port: port)
        }
        var configuration = LocalNetworkTransport.Configuration(port: port, peers: peers)
        if noMulticast { configuration.multicastGroup = nil }
        let transport = LocalNetworkTransport(configuration: configuration)
        let sync = PeerSync(client: client, bucket: items.name, transport: transport)
        let events = items.events
        try await sync.start()
        print("listening on port \(transport.port ?? 0)")
        let printing = Task {
            for await event in events where event.origin == .peer {
                print("\(event.kind) \(event.key)")
            }
        }
        let watching = Task {
            var known: Set<String> = []
            while !Task.isCancelled {
                let now = sync.connectedPeers
                for peer in now.subtracting(known).sorted() { print("joined \(peer)") }
                for peer in known.subtracting(now).sorted() { print("left \(peer)") }
                known = now
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        if seconds > 0 {
            try await Task.sleep(for: .seconds(seconds))
        } else {
            while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
        }
        watching.cancel()
        await sync.stop()
        printing.cancel()
        await client.close()
    }
}
