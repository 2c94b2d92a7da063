import ArgumentParser
import Foundation
import LockstepClient

/// `inventory`: a moving team's offline inventory on Lockstep, using only the public client API.
///
/// Each job is a space (`job-<number>`) shared by its team alone: its owner invites the movers
/// as writers (and the customer as a reader) and takes a mover off the job, whose phone then
/// drops the job and stops receiving it.
///
/// Every mover's phone keeps the job's items in its own store and works with no network at
/// all. Phones near each other sync directly (`inventory peer`), and everything reaches the
/// server when any phone that holds it gets online (`inventory sync`): no duplicates, deleted
/// items stay deleted, and of two edits of one field the later one by server time wins.
@main
struct Inventory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inventory", abstract: "An offline inventory for a moving team, synced phone to phone and with the server.",
        subcommands: [Job.self, Jobs.self, Add.self, Change.self, Delete.self, List.self, Photo.self, Sync.self, Peer.self])
}

struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List a new item; prints its key.")

    @OptionGroup var job: JobOptions
    @Option(help: "What it is.") var name: String
    @Option(help: "Furniture, boxes, fragile…") var category: String
    @Option(help: "The barcode on its label.") var barcode: String?
    @Option(help: "A photo reference; repeat for several.") var photo: [String] = []
    @Option(help: "Its status.") var status: Item.Status = .listed

    func run() async throws {
        let (client, items) = try job.open()
        let key = try await items.insert(
            Item(name: name, category: category, barcode: barcode, photos: photo.isEmpty ? nil : photo, status: status))
        print(key)
        await client.close()
    }
}

struct Change: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Change an item's fields; the others are left as they are.")

    @OptionGroup var job: JobOptions
    @Argument(help: "The item's key.") var key: String
    @Option var name: String?
    @Option var category: String?
    @Option var barcode: String?
    @Option(help: "A photo reference to add; repeat for several.") var addPhoto: [String] = []
    @Option var status: Item.Status?

    func run() async throws {
        let (client, items) = try job.open()
        let (name, category, barcode, addPhoto, status) = (name, category, barcode, addPhoto, status)
        try await items.update(key) { item in
            if let name { item.name = name }
            if let category { item.category = category }
            if let barcode { item.barcode = barcode }
            if !addPhoto.isEmpty { item.photos = (item.photos ?? []) + addPhoto }
            if let status { item.status = status }
        }
        await client.close()
    }
}

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete an item, for good, on every phone and the server.")

    @OptionGroup var job: JobOptions
    @Argument(help: "The item's key.") var key: String

    func run() async throws {
        let (client, items) = try job.open()
        try await items.delete(key)
        await client.close()
    }
}

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the items this phone holds.")

    @OptionGroup var job: JobOptions
    @Flag(help: "One JSON object of every item by key, for scripts.") var json = false

    func run() async throws {
        let (client, items) = try job.open()
        let all = try items.list()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let byKey = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0.value) })
            print(String(decoding: try encoder.encode(byKey), as: UTF8.self))
        } else {
            for (key, item) in all {
                let count = (item.photos?.count ?? 0) + item.pictures.count
                let pictures = item.pictures.keys.sorted().map { "\($0) (\(item.pictures[$0]!.size) bytes)" }
                let photos = count == 0 ? "" : "\(count) photo(s)" + (pictures.isEmpty ? "" : ": " + pictures.joined(separator: ", "))
                print([key, item.status.rawValue, item.category, item.name, item.barcode ?? "", photos].joined(separator: "\t"))
            }
        }
        let pending = try client.outbox.pending.count
        if !json && pending > 0 { print("\(pending) change(s) not on the server yet") }
        await client.close()
    }
}
