import Foundation
import LockstepCore
import Testing

/// The `inventory` example as movers would run it: separate processes, one store per phone,
/// a real server that is down while the phones sync with each other over TCP, each job a space
/// shared by its team alone.
@Suite("inventory example", .serialized)
struct InventoryTests {
    @Test("two movers edit offline, sync phone to phone, then with the server")
    func offlineJob() async throws {
        var server = try await TestServer.start()
        let (stores, tokens, movers) = try await Self.movers(of: server)
        defer { stores.forEach(removeStore) }
        func inventory(_ mover: Int, _ command: String, _ arguments: String...) async throws -> String {
            let result = try await LockstepTool.run([command] + movers[mover] + arguments, program: "inventory")
            try #require(result.status == 0, "inventory \(command) \(arguments): \(result.output)")
            return result.output
        }
        func items(_ mover: Int) async throws -> JSONObject {
            try #require(try JSONValue(parsing: Array(try await inventory(mover, "list", "--json").utf8)).objectValue)
        }

        let sofa = try await inventory(0, "add", "--name", "Sofa", "--category", "furniture", "--barcode", "4006381333931", "--photo", "sofa-1.jpg")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let lamp = try await inventory(0, "add", "--name", "Lamp", "--category", "lighting")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await inventory(0, "sync")
        _ = try await inventory(1, "sync")
        #expect(try await items(1).keys.sorted() == [sofa, lamp].sorted())

        await server.stop(keepingFiles: true)
        _ = try await inventory(0, "change", sofa, "--status", "packed", "--add-photo", "sofa-2.jpg")
        _ = try await inventory(1, "delete", lamp)
        let box = try await inventory(1, "add", "--name", "Books", "--category", "boxes", "--status", "packed")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // The second phone listens on a port the first dials (and dials again, until it answers).
        let port = Int.random(in: 20_000...30_000)
        async let listening = LockstepTool.run(
            ["peer"] + movers[1] + ["--port", "\(port)", "--no-multicast", "--seconds", "6"], program: "inventory")
        async let dialling = LockstepTool.run(
            ["peer"] + movers[0] + ["--no-multicast", "--seconds", "6", "--connect", "127.0.0.1:\(port)"], program: "inventory")
        let (heard, dialled) = try await (listening, dialling)
        #expect(heard.status == 0 && dialled.status == 0, "\(heard.output)\n\(dialled.output)")
        #expect(heard.output.contains("joined "), "\(heard.output)")
        #expect(heard.output.contains("inserted \(box)") == false, "its own item is not news to the phone that made it")
        #expect(dialled.output.contains("inserted \(box)"), "\(dialled.output)")
        let (one, two) = (try await items(0), try await items(1))
        #expect(one == two)
        #expect(one[lamp] == nil)
        #expect(one[sofa]?["status"] == "packed")
        #expect(one[sofa]?["photos"] == ["sofa-1.jpg", "sofa-2.jpg"])
        #expect(one[box]?["category"] == "boxes")

        server = try await server.restart()
        _ = try await inventory(1, "sync")
        _ = try await inventory(0, "sync")
        let onServer = try await server.objects(Self.jobBucket, token: tokens[0])
        #expect(Set(onServer.keys) == [sofa, box])
        #expect(onServer[sofa]?["status"] == "packed")
        await server.stop()
    }

    @Test("a mover attaches a photo on site; another phone lists it and saves it; edits keep it")
    func photos() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (stores, tokens, movers) = try await Self.movers(of: server)
        defer { stores.forEach(removeStore) }
        func inventory(_ mover: Int, _ words: [String], _ arguments: String...) async throws -> String {
            let result = try await LockstepTool.run(words + movers[mover] + arguments, program: "inventory")
            try #require(result.status == 0, "inventory \(words) \(arguments): \(result.output)")
            return result.output
        }
        let photo = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("box-\(UUID().uuidString).jpg")
        try Data(photo).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let box = try await inventory(0, ["add"], "--name", "Books", "--category", "boxes").trimmingCharacters(in: .whitespacesAndNewlines)
        let added = try await inventory(0, ["photo", "add"], box, file.path, "--name", "front")
        #expect(added.contains("front\t300000 bytes"), "\(added)")
        // On the phone at once, before any sync.
        #expect(try await inventory(0, ["list"]).contains("1 photo(s): front (300000 bytes)"))
        _ = try await inventory(0, ["sync"])

        _ = try await inventory(1, ["sync"])
        #expect(try await inventory(1, ["list"]).contains("1 photo(s): front (300000 bytes)"))
        let saved = FileManager.default.temporaryDirectory.appendingPathComponent("saved-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: saved) }
        _ = try await inventory(1, ["photo", "save"], box, "front", "--output", saved.path)
        #expect(try Data(contentsOf: saved) == Data(photo))

        // Another field changed on the second phone: the photo stays on the item everywhere.
        _ = try await inventory(1, ["change"], box, "--status", "packed")
        _ = try await inventory(1, ["sync"])
        let onServer = try await server.objects(Self.jobBucket, token: tokens[0])
        #expect(onServer[box]?["status"] == "packed")
        #expect(onServer[box]?["photo-front"]?["$blob"]?.stringValue?.hasPrefix("sha256:") == true, "\(onServer[box] ?? [:])")
        let missing = try await LockstepTool.run(["photo", "save"] + movers[1] + [box, "back", "--output", saved.path], program: "inventory")
        #expect(missing.status != 0 && missing.output.contains("has no photo back"), "\(missing.output)")
    }

    static let job = "1234"
    /// The job's items on the server: the bucket `items` of the space `job-1234`.
    static let jobBucket = "__job-1234.items"

    /// Two movers of the server's app on job 1234, which the first made and put the second
    /// on as a writer: each one's phone store, token, and the options that point `inventory`
    /// at them.
    private static func movers(of server: TestServer) async throws -> (stores: [URL], tokens: [String], arguments: [[String]]) {
        let phones = try await InventoryPhones(server: server, people: ["mover-0@example.com", "mover-1@example.com"])
        _ = try await phones.run(0, ["job", "create"])
        _ = try await phones.run(0, ["job", "invite"], "mover-1@example.com", "--as", "writer")
        return (phones.stores, phones.tokens, phones.arguments)
    }
}

/// People of the server's app, each with a phone: a store of their own, a token, and the
/// options that point `inventory` at them and at job 1234.
struct InventoryPhones {
    let stores: [URL]
    let tokens: [String]
    /// Each person's options for job 1234.
    let arguments: [[String]]
    /// Each person's options for commands about no job in particular (`inventory jobs`).
    let phoneArguments: [[String]]

    init(server: TestServer, people: [String]) async throws {
        stores = people.map { _ in temporaryStore() }
        var tokens: [String] = []
        for email in people { tokens.append(try await server.createUser(email)) }
        self.tokens = tokens
        phoneArguments = zip(stores, tokens).map { store, token in
            ["--server", server.baseURL.absoluteString, "--app", server.appID, "--token", token, "--store", store.path]
        }
        arguments = phoneArguments.map { $0 + ["--job", InventoryTests.job] }
    }

    /// The jobs person `index` is on, as `inventory jobs` prints them.
    func jobs(_ index: Int) async throws -> String {
        let result = try await LockstepTool.run(["jobs"] + phoneArguments[index], program: "inventory")
        try #require(result.status == 0, "inventory jobs: \(result.output)")
        return result.output
    }

    /// Runs `inventory <words> <options> <arguments>` as person `index`, whatever its exit status.
    func attempt(_ index: Int, _ words: [String], _ arguments: [String] = []) async throws -> (status: Int32, output: String) {
        try await LockstepTool.run(words + self.arguments[index] + arguments, program: "inventory")
    }

    /// Runs it and requires that it succeeds; what it printed.
    func run(_ index: Int, _ words: [String], _ arguments: String...) async throws -> String {
        let result = try await attempt(index, words, arguments)
        try #require(result.status == 0, "inventory \(words) \(arguments): \(result.output)")
        return result.output
    }

    /// The items person `index`'s phone holds, by key.
    func items(_ index: Int) async throws -> JSONObject {
        try #require(try JSONValue(parsing: Array(try await run(index, ["list"], "--json").utf8)).objectValue)
    }

    func removeStores() {
        stores.forEach(removeStore)
    }
}
