import Foundation
import LockstepCore
import LockstepServer
import Testing

/// The admin API the console reads (`/1/{app}/__admin__/…`), over HTTP against a real server
/// on each store: SQLite and PostgreSQL answer the same.
@Suite("Admin API (SQLite and PostgreSQL)")
struct AdminAPITests {
    @Test(arguments: StoreKind.allCases)
    func listsUsersBucketsObjectsAndCounts(_ kind: StoreKind) async throws {
        try await withAdmin(kind) { server, admin, app in
            let bob = try await server.createUser("bob@example.com")
            let alice = try await server.createUser("Alice@example.com")

            // Users by canonical name, with their tokens; a prefix, and pages.
            let users = try await server.request("GET", "\(app)/__admin__/users", headers: admin)
            #expect(users.status == 200, "\(users)")
            let listed = users.json?["users"]?.arrayValue ?? []
            #expect(listed.map { $0["username"]?.stringValue } == ["Alice@example.com", "bob@example.com"])
            #expect(listed.map { $0["tokens"]?.integerValue } == [1, 1])
            #expect(listed.first?["id"]?.stringValue == alice.userID)
            #expect(listed.first?["password"]?.boolValue == true)
            let prefixed = try await server.request("GET", "\(app)/__admin__/users?prefix=ALI", headers: admin)
            #expect(prefixed.json?["users"]?.arrayValue?.map { $0["username"]?.stringValue } == ["Alice@example.com"])
            let first = try await server.request("GET", "\(app)/__admin__/users?limit=1", headers: admin)
            let after = try #require(first.json?["after"]?.stringValue)
            let second = try await server.request("GET", "\(app)/__admin__/users?limit=1&after=\(after)", headers: admin)
            #expect(second.json?["users"]?.arrayValue?.map { $0["username"]?.stringValue } == ["bob@example.com"])
            let bad = try await server.request("GET", "\(app)/__admin__/users?limit=0", headers: admin)
            #expect(bad.status == 400 && bad.text.contains("limit must be an integer"), "\(bad)")

            // Made by the admin: without a password too; a taken name is a conflict.
            let made = try await server.request("POST", "\(app)/__admin__/users", headers: admin, body: ["username": "carol@example.com"])
            #expect(made.status == 201 && made.json?["username"]?.stringValue == "carol@example.com", "\(made)")
            let taken = try await server.request("POST", "\(app)/__admin__/users", headers: admin, body: ["username": "CAROL@example.com"])
            #expect(taken.status == 409 && taken.text.contains("is taken"), "\(taken)")
            let nameless = try await server.request("POST", "\(app)/__admin__/users", headers: admin, body: ["password": "x"])
            #expect(nameless.status == 400 && nameless.text.contains("username"), "\(nameless)")

            // Buckets of every owner with live object counts; a shared one; a removal uncounted.
            for key in ["a1", "a2", "b1"] {
                #expect(try await alice.request("POST", "notes/i/\(key)", body: ["n": 1]).status == 200)
            }
            #expect(try await alice.request("DELETE", "notes/i/a2").status == 200)
            #expect(try await bob.request("POST", "notes/i/x", body: ["n": 2]).status == 200)
            #expect(try await server.request("POST", "\(app)/__options__/i/board", headers: admin, body: ["shared": true]).status == 200)
            #expect(try await bob.request("POST", "board/i/pin", body: ["n": 3]).status == 200)
            // A space's bucket is listed with the space's name, the console's way to browse it.
            #expect(try await alice.request("POST", "__spaces__", body: ["name": "job-1"]).status == 201)
            #expect(try await alice.request("POST", "__job-1.items/i/sofa", body: ["n": 4]).status == 200)
            let buckets = try await server.request("GET", "\(app)/__admin__/buckets", headers: admin)
            let rows = (buckets.json?["buckets"]?.arrayValue ?? []).map {
                "\($0["name"]?.stringValue ?? "")|\($0["ownerName"]?.stringValue ?? "*")|\($0["objects"]?.integerValue ?? -1)|\($0["changes"]?.integerValue ?? -1)"
            }
            #expect(Set(rows) == ["notes|Alice@example.com|2|4", "notes|bob@example.com|1|1", "board|*|1|1", "items|job-1|1|1"], "\(buckets)")
            #expect(buckets.json?["buckets"]?.arrayValue?.first { $0["name"] == "board" }?["options"]?["shared"]?.boolValue == true)

            // Objects by key prefix, removals marked, in pages.
            let objects = try await server.request("GET", "\(app)/__admin__/objects/notes?owner=\(alice.userID)&prefix=a", headers: admin)
            #expect(objects.json?["objects"]?.arrayValue?.map { "\($0["id"]!.stringValue!):\($0["deleted"]!.boolValue!)" } == ["a1:false", "a2:true"], "\(objects)")
            let paged = try await server.request("GET", "\(app)/__admin__/objects/notes?owner=\(alice.userID)&limit=2&after=a1", headers: admin)
            #expect(paged.json?["objects"]?.arrayValue?.map { $0["id"]?.stringValue } == ["a2", "b1"])
            #expect(paged.json?["after"]?.stringValue == "b1")

            // The app's counters and the store.
            let stats = try await server.request("GET", "\(app)/__admin__/stats", headers: admin)
            #expect(stats.json?["changes"]?.integerValue == 7, "\(stats)")
            #expect(stats.json?["users"]?.integerValue == 3)
            #expect(stats.json?["store"]?["kind"]?.stringValue == (kind == .sqlite ? "SQLite" : "PostgreSQL"))
            #expect(stats.json?["store"]?["nodes"]?.arrayValue?.contains(.string(server.services.store.nodeID)) == true)
            #expect(stats.json?["version"]?.stringValue == LockstepVersion.current)

            let presence = try await server.request("GET", "\(app)/__admin__/presence", headers: admin)
            #expect(presence.status == 200 && presence.json?["claims"]?.arrayValue == [], "\(presence)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func pagesAnObjectsVersionsNewestFirst(_ kind: StoreKind) async throws {
        try await withAdmin(kind) { server, admin, app in
            let ann = try await server.createUser("ann@example.com")
            for n in 1...25 {
                #expect(try await ann.request("POST", "notes/i/list", body: ["n": .integer(Int64(n))]).status == 200)
            }
            let first = try await server.request("GET", "\(app)/__admin__/versions/notes/list?owner=\(ann.userID)", headers: admin)
            #expect(first.status == 200, "\(first)")
            let page = first.json?["versions"]?.arrayValue ?? []
            #expect(page.map { $0["v"]?.integerValue } == (6...25).reversed().map { Int64($0) })
            // Each version's own data, rebuilt from the history.
            #expect(page.allSatisfy { $0["data"]?["n"]?.integerValue == $0["v"]?.integerValue }, "\(page)")
            #expect(first.json?["version"]?.integerValue == 25 && first.json?["before"]?.integerValue == 6)
            let second = try await server.request("GET", "\(app)/__admin__/versions/notes/list?owner=\(ann.userID)&before=6&limit=100", headers: admin)
            #expect(second.json?["versions"]?.arrayValue?.map { $0["v"]?.integerValue } == [5, 4, 3, 2, 1], "\(second)")
            #expect(second.json?["before"] == nil)

            // Each version says who made it (with their email, for the admin) and when.
            let newestVersion = try #require(page.first)
            #expect(newestVersion["author"] == ["kind": "user", "user": .string(ann.userID), "email": "ann@example.com", "client": "http"])
            let committedAt = try #require(newestVersion["committedAt"]?.integerValue)
            #expect(abs(committedAt - Int64(Date().timeIntervalSince1970 * 1000)) < 60_000, "\(newestVersion)")

            // A removed object's removal is in its history too, with no data.
            #expect(try await ann.request("DELETE", "notes/i/list").status == 200)
            let removed = try await server.request("GET", "\(app)/__admin__/versions/notes/list?owner=\(ann.userID)&limit=2", headers: admin)
            #expect(removed.json?["deleted"]?.boolValue == true && removed.json?["versions"]?.arrayValue?.map { $0["v"]?.integerValue } == [26, 25], "\(removed)")
            let removal = try #require(removed.json?["versions"]?[0])
            #expect(removal["removed"] == true && removal["data"] == nil && removal["author"]?["user"]?.stringValue == ann.userID, "\(removal)")

            // Bad input: a clear 400; an object that is not there (another owner's name space): 404.
            let badLimit = try await server.request("GET", "\(app)/__admin__/versions/notes/list?limit=101", headers: admin)
            #expect(badLimit.status == 400 && badLimit.text.contains("limit must be an integer from 1 to 100"), "\(badLimit)")
            let badKey = try await server.request("GET", "\(app)/__admin__/versions/notes/a~b", headers: admin)
            #expect(badKey.status == 400 && badKey.text.contains("not a valid object id"), "\(badKey)")
            let elsewhere = try await server.request("GET", "\(app)/__admin__/versions/notes/list", headers: admin)
            #expect(elsewhere.status == 404 && elsewhere.text.contains("there is no object list"), "\(elsewhere)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func readsTheNewestEndOfABucketsFeedAcrossOwners(_ kind: StoreKind) async throws {
        try await withAdmin(kind) { server, admin, app in
            let ann = try await server.createUser("ann@example.com")
            let bob = try await server.createUser("bob@example.com")
            for n in 1...4 {
                #expect(try await ann.request("POST", "orders/i/a\(n)", body: ["n": .integer(Int64(n))]).status == 200)
                #expect(try await bob.request("POST", "orders/i/b\(n)", body: ["n": .integer(Int64(n))]).status == 200)
                #expect(try await ann.request("POST", "notes/i/x\(n)", body: ["n": .integer(Int64(n))]).status == 200)
            }
            // The last three of orders, whoever owns them, oldest first, with their data, at once.
            let newest = try await server.request("GET", "\(app)/orders/all?newest=3&data=1&username=1", headers: admin)
            #expect(newest.status == 200, "\(newest)")
            let entries = newest.json?.arrayValue ?? []
            #expect(entries.map { $0["id"]?.stringValue } == ["\(bob.userID)/b3", "\(ann.userID)/a4", "\(bob.userID)/b4"], "\(newest)")
            #expect(entries.map { $0["d"]?["n"]?.integerValue } == [3, 4, 4])
            #expect(entries.last?["username"]?.stringValue == "bob@example.com")
            // Followed on from the last one's cv: only what came after.
            let cursor = try #require(entries.last?["cv"]?.stringValue)
            #expect(try await ann.request("POST", "orders/i/a5", body: ["n": 5]).status == 200)
            let next = try await server.request("GET", "\(app)/orders/all?cv=\(cursor)", headers: admin)
            #expect(next.json?.arrayValue?.map { $0["id"]?.stringValue } == ["\(ann.userID)/a5"], "\(next)")
            // An empty feed answers at once; bad input is refused.
            let empty = try await server.request("GET", "\(app)/nothing/all?newest=5", headers: admin)
            #expect(empty.status == 200 && empty.json == [], "\(empty)")
            let zero = try await server.request("GET", "\(app)/orders/all?newest=0", headers: admin)
            #expect(zero.status == 400 && zero.text.contains("newest must be an integer"), "\(zero)")
            let both = try await server.request("GET", "\(app)/orders/all?newest=2&cv=\(cursor)", headers: admin)
            #expect(both.status == 400 && both.text.contains("without cv"), "\(both)")
            #expect(try await ann.request("GET", "orders/all?newest=2").status == 403)
        }
    }

    /// Runs `body` against a server on a store of `kind`, with the admin token's headers and
    /// the app's path.
    private func withAdmin(_ kind: StoreKind, _ body: (TestServer, _ admin: [String: String], _ app: String) async throws -> Void)
        async throws
    {
        try await TestServer.with(kind) { server in
            try await body(server, ["X-Simperium-Token": server.app.adminToken], "/1/\(server.appID)")
        }
    }

    @Test func onlyTheAdminTokenActingAsItselfIsServed() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let app = "/1/\(server.appID)"
        for path in ["stats", "users", "buckets", "objects/notes", "presence", "versions/notes/n1"] {
            let anonymous = try await server.request("GET", "\(app)/__admin__/\(path)")
            #expect(anonymous.status == 401, "\(path): \(anonymous)")
            let wrong = try await server.request("GET", "\(app)/__admin__/\(path)", headers: ["X-Simperium-Token": "nope"])
            #expect(wrong.status == 401 && wrong.text.contains("not valid"), "\(path): \(wrong)")
            let users = try await server.request("GET", "\(app)/__admin__/\(path)", headers: ["X-Simperium-Token": user.token])
            #expect(users.status == 403 && users.text.contains("only the app's admin token"), "\(path): \(users)")
        }
        let madeByUser = try await user.request("POST", "__admin__/users", body: ["username": "eve@example.com"])
        #expect(madeByUser.status == 403)
    }

    @Test func servesTheConsoleWithAStrictPolicy() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        // The client follows the redirects: / to /console/, and /console to /console/.
        for path in ["/", "/console"] {
            let page = try await server.request("GET", path)
            #expect(page.status == 200 && page.text.contains("Lockstep Console"), "\(path): \(page)")
        }
        let page = try await server.request("GET", "/console/")
        #expect(page.status == 200 && page.text.contains("Lockstep Console"))
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.hasPrefix("default-src 'self'; connect-src 'self' ws://127.0.0.1:\(server.port) wss://127.0.0.1:\(server.port);"), "\(policy)")
        #expect(page.header("X-Content-Type-Options") == "nosniff")
        let script = try await server.request("GET", "/console/views/objects.js")
        #expect(script.status == 200 && script.header("Content-Type") == "text/javascript; charset=utf-8")
        for path in ["/console/../Package.swift", "/console/%2e%2e/Package.swift", "/console/missing.js"] {
            #expect(try await server.request("GET", path).status == 404, "\(path)")
        }
    }

    @Test func theConsoleIsSmall() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/LockstepServer/Console/Files")
        var total = 0
        for case let url as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) ?? FileManager.DirectoryEnumerator() {
            total += (try? Data(contentsOf: url).count) ?? 0
        }
        #expect(total > 10_000 && total < 200_000, "the console's files take \(total) bytes")
    }
}
