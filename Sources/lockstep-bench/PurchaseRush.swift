import AsyncHTTPClient
import CommandLineSupport
import Foundation
import LockstepCore
import NIOCore

/// Thousands of players buy one item at the instant it is released: each opens it with the
/// key released then and buys it; every purchase must be answered, once, within a few seconds.
struct PurchaseRush {
    let url: String
    let client: HTTPClient
    let players: Int
    let connections: Int
    /// The server's process, whose CPU time during the rush is reported.
    let serverPID: Int32

    struct Result {
        var accepted: Int
        var failed: [String]
        var latencies: [Double]
    }

    /// The default app's credentials, as `lockstep serve` keeps them for a fresh SQLite store.
    static func credentials(dataDirectory: String) throws -> (app: String, admin: String) {
        let json = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: dataDirectory + "/default-app.json"))))
        guard let app = json["app_id"]?.stringValue, let admin = json["admin_token"]?.stringValue else {
            throw CommandError("default-app.json holds no app id or admin token")
        }
        return (app, admin)
    }

    func run(app: String, adminToken: String, say report: (String) -> Void) async throws {
        let tokens = try await issueTokens(app: app, adminToken: adminToken)
        let (slot, start, window) = try await nextShowing()
        let wait = start - Int64(Date().timeIntervalSince1970 * 1000)
        report("purchases: \(players) players buy slot \(slot) at its release, \(wait) ms from now, over \(connections) connections")
        if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }

        let cpu = CPUTime(including: [serverPID])
        // This process and its children, the server among them: less the server, the players.
        let ownCPU = CPUTime(including: [getpid()])
        let fired = ContinuousClock.now
        let key = try ReleasedKey(json: try await get("/releases/main/keys/\(start)"))
        guard let entry = window.entries.first(where: { $0.slot == slot && $0.start == start }),
            let chainKey = key.key(at: entry.position), let item = try entry.open(store: "main", chainKey: chainKey)
        else { throw CommandError("the released key does not open slot \(slot)") }
        let itemID = item.id
        let url = url
        let client = client
        let outcomes = await withTaskGroup(of: (Int, Double).self) { group in
            for (player, token) in tokens.enumerated() {
                group.addTask {
                    var request = HTTPClientRequest(url: url + "/1/\(app)/purchase")
                    request.method = .POST
                    request.headers.add(name: "X-Simperium-Token", value: token)
                    let body: JSONValue = [
                        "id": .string("p-\(player)"), "store": "main", "slot": .integer(Int64(slot)), "start": .integer(start), "item": .string(itemID),
                    ]
                    request.body = .bytes(ByteBuffer(bytes: body.jsonBytes))
                    // The answer counts once all of it has arrived; reading it also keeps the
                    // connection open for the next request (a body left unread cancels it).
                    guard let response = try? await client.execute(request, timeout: .seconds(60)),
                        (try? await response.body.collect(upTo: 4096)) != nil
                    else { return (0, (ContinuousClock.now - fired).seconds * 1000) }
                    return (Int(response.status.code), (ContinuousClock.now - fired).seconds * 1000)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let used = cpu.elapsed()
        let generatorUsed = ownCPU.elapsed() - used
        let failed = outcomes.filter { $0.0 != 201 }.map { "status \($0.0)" }
        let latencies = outcomes.map(\.1).sorted()
        report(String(
            format: "purchases: %d of %d accepted (201) in %.0f ms from the release (the key fetched and opened first); p50 %.0f ms, p99 %.0f ms; %d refused or failed",
            outcomes.count - failed.count, players, latencies.last ?? 0, quantile(0.5, of: latencies), quantile(0.99, of: latencies),
            failed.count))
        report(String(
            format: "purchases: server CPU %.0f ms during the rush (%.0f µs a purchase); the players' (this process) %.0f ms",
            used * 1000, used * 1e6 / Double(max(1, players)), generatorUsed * 1000))
        let recorded = try await countPurchases(app: app, adminToken: adminToken)
        report("purchases: \(recorded) records in the purchases buckets (each once)")
    }

    private func issueTokens(app: String, adminToken: String) async throws -> [String] {
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var tokens = [String](repeating: "", count: players)
            var next = 0
            func add() {
                let player = next
                next += 1
                group.addTask {
                    var request = HTTPClientRequest(url: url + "/1/\(app)/token")
                    request.method = .POST
                    request.headers.add(name: "X-Simperium-Token", value: adminToken)
                    request.body = .bytes(ByteBuffer(bytes: JSONValue.object(["username": .string("player-\(player)@example.com")]).jsonBytes))
                    let response = try await client.execute(request, timeout: .seconds(60))
                    let json = try JSONValue(parsing: Array(try await response.body.collect(upTo: 1 << 20).readableBytesView))
                    guard let token = json["access_token"]?.stringValue else { throw CommandError("no token for player \(player): \(json)") }
                    return (player, token)
                }
            }
            for _ in 0..<min(connections, players) { add() }
            while let (player, token) = try await group.next() {
                tokens[player] = token
                if next < players { add() }
            }
            return tokens
        }
    }

    /// The first showing that starts at least two seconds from now, in the latest window.
    private func nextShowing() async throws -> (slot: Int, start: Int64, window: ReleaseWindow) {
        let window = try ReleaseWindow(json: try await get("/releases/main/windows/latest"))
        let soon = Int64(Date().timeIntervalSince1970 * 1000) + 2000
        guard let entry = window.entries.filter({ $0.start >= soon }).min(by: { $0.start < $1.start }) else {
            throw CommandError("no showing starts in the latest window after \(soon)")
        }
        return (entry.slot, entry.start, window)
    }

    /// The distinct purchase records of every player, read through the admin's `/all` feed.
    private func countPurchases(app: String, adminToken: String) async throws -> Int {
        var seen = Set<String>()
        var cursor: String?
        while true {
            var request = HTTPClientRequest(url: url + "/1/\(app)/purchases/all?batch=1000" + (cursor.map { "&cv=\($0)" } ?? ""))
            request.headers.add(name: "X-Simperium-Token", value: adminToken)
            let response = try await client.execute(request, timeout: .seconds(60))
            let page = try JSONValue(parsing: Array(try await response.body.collect(upTo: 1 << 28).readableBytesView)).arrayValue ?? []
            seen.formUnion(page.compactMap { $0["id"]?.stringValue })
            guard page.count == 1000, let last = page.last?["cv"]?.stringValue else { return seen.count }
            cursor = last
        }
    }

    private func get(_ path: String) async throws -> JSONValue {
        let response = try await client.execute(HTTPClientRequest(url: url + path), timeout: .seconds(10))
        guard response.status == .ok else { throw CommandError("GET \(path) answered \(response.status)") }
        return try JSONValue(parsing: Array(try await response.body.collect(upTo: 1 << 26).readableBytesView))
    }
}
