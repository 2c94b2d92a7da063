import LockstepCore
import LockstepServer
import Testing

@Suite("HTTP data API: objects, versions, errors")
struct ObjectAPITests {
    @Test func createMergeReplaceAndVersions() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let created = try await user.request("POST", "note/i/n1?response=1", body: ["title": "a", "n": 1])
        #expect(created.status == 200)
        #expect(created.header("X-Simperium-Version") == "1")
        #expect(created.json == ["title": "a", "n": 1])
        let merged = try await user.request("POST", "note/i/n1", body: ["n": 2])
        #expect(merged.header("X-Simperium-Version") == "2")
        #expect(merged.body.isEmpty)
        #expect(try await user.request("GET", "note/i/n1").json == ["title": "a", "n": 2])
        _ = try await user.request("POST", "note/i/n1?replace=1", body: ["only": true])
        let latest = try await user.request("GET", "note/i/n1")
        #expect(latest.json == ["only": true])
        #expect(latest.header("X-Simperium-Version") == "3")
        #expect(try await user.request("GET", "note/i/n1/v/1").json == ["title": "a", "n": 1])
        #expect(try await user.request("GET", "note/i/n1/v/2").header("X-Simperium-Version") == "2")
        #expect(try await user.request("GET", "note/i/n1/v/9").status == 404)
    }

    @Test func aPostAgainstAnOldVersionIsRebasedNotLost() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/n1", body: ["a": "one", "b": "two"])
        _ = try await user.request("POST", "note/i/n1", body: ["a": "ONE"])
        // Made against version 1, after version 2 changed another member: both land.
        let late = try await user.request("POST", "note/i/n1/v/1?response=1", body: ["b": "TWO"])
        #expect(late.status == 200)
        #expect(late.json == ["a": "ONE", "b": "TWO"])
        #expect(late.header("X-Simperium-Version") == "3")
    }

    @Test func deleteLeavesATombstoneThatNeverComesBack() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/n1", body: ["a": 1])
        let stale = try await user.request("DELETE", "note/i/n1/v/7")
        #expect(stale.status == 409)
        let deleted = try await user.request("DELETE", "note/i/n1")
        #expect(deleted.status == 200)
        #expect(deleted.body.isEmpty)
        #expect(deleted.header("X-Simperium-Version") == "2")
        #expect(try await user.request("GET", "note/i/n1").status == 404)
        #expect(try await user.request("DELETE", "note/i/n1").status == 404)
        let revived = try await user.request("POST", "note/i/n1", body: ["a": 2])
        #expect(revived.status == 410)
        #expect(revived.errorMessage?.contains("never come back") == true)
        #expect(try await user.request("GET", "note/i/n1/v/1").json == ["a": 1])
    }

    @Test func badInputGetsAClearErrorAndStoresNothing() async throws {
        var limits = TestServer.testLimits
        limits.maximumObjectBytes = 200
        limits.maximumRequestBytes = 1000
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/keep", body: ["a": 1])
        let big = String(repeating: "x", count: 300)
        let cases: [(String, String, [UInt8]?, Int, String)] = [
            ("POST", "note/i/n1", Array("{not json".utf8), 400, "not valid JSON"),
            ("POST", "note/i/n1", Array("[1,2]".utf8), 400, "JSON object"),
            ("POST", "note/i/bad~id", Array("{}".utf8), 400, "not a valid object id"),
            ("POST", "bad$bucket/i/n1", Array("{}".utf8), 400, "not a valid bucket name"),
            ("POST", "note/i/n1", Array("{\"a\":\"\(big)\"}".utf8), 413, "limit is 200"),
            ("POST", "note/i/n1", Array("{\"a\":\"\(String(repeating: "y", count: 2000))\"}".utf8), 413, ""),
            ("POST", "note/i/keep", Array("{\"a\":\"\(big)\"}".utf8), 413, "limit is 200"),
            ("POST", "note/i/keep/v/0", Array("{}".utf8), 400, "positive integer"),
            ("POST", "note/i/keep/v/5", Array("{\"b\":1}".utf8), 405, "does not exist"),
            ("POST", "note/i/keep", Array("{\"a\":1}".utf8), 412, "as it is"),
            ("GET", "note/index?limit=0", nil, 400, "limit"),
            ("GET", "note/index?limit=5000", nil, 400, "limit"),
            ("GET", "note/changes?cv=nothex", nil, 404, "not known"),
            ("GET", "note/changes?cv=00000001000000000000000a", nil, 404, "not known"),
        ]
        for (method, path, body, status, words) in cases {
            let response = try await user.request(method, path, rawBody: body)
            #expect(response.status == status, "\(method) \(path): \(response)")
            if !words.isEmpty { #expect(response.errorMessage?.contains(words) == true, "\(method) \(path): \(response)") }
        }
        #expect(try await user.request("GET", "note/i/n1").status == 404)
        let kept = try await user.request("GET", "note/i/keep")
        #expect(kept.json == ["a": 1])
        #expect(kept.header("X-Simperium-Version") == "1")
        let unknownApp = try await server.request("GET", "/1/nope/note/i/x", headers: ["X-Simperium-Token": user.token])
        #expect(unknownApp.status == 404)
    }

    @Test func usersNeverSeeEachOthersData() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let alice = try await server.createUser()
        let bob = try await server.createUser()
        _ = try await alice.request("POST", "note/i/secret", body: ["text": "alice's"])
        #expect(try await bob.request("GET", "note/i/secret").status == 404)
        #expect(try await bob.request("GET", "note/index").json?["index"] == [])
        #expect(try await bob.request("GET", "note/changes").json == [])
        _ = try await bob.request("POST", "note/i/secret", body: ["text": "bob's"])
        #expect(try await alice.request("GET", "note/i/secret").json == ["text": "alice's"])
        #expect(try await bob.request("GET", "note/i/secret").json == ["text": "bob's"])
        // Only the admin reads /all, and the admin must name a user for per-user buckets.
        #expect(try await alice.request("GET", "note/all").status == 403)
        let adminWithoutUser = try await server.request(
            "GET", "/1/\(server.appID)/note/i/secret", headers: ["X-Simperium-Token": server.app.adminToken])
        #expect(adminWithoutUser.status == 400)
        let adminAsBob = try await server.request(
            "GET", "/1/\(server.appID)/note/i/secret",
            headers: ["X-Simperium-Token": server.app.adminToken, "X-Simperium-User": bob.userID])
        #expect(adminAsBob.json == ["text": "bob's"])
    }

    @Test func bucketOptionsMakeSharedAndReadOnlyBuckets() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let alice = try await server.createUser()
        let bob = try await server.createUser()
        let admin = ["X-Simperium-Token": server.app.adminToken]
        let refused = try await alice.request("POST", "__options__/i/catalog", body: ["shared": true])
        #expect(refused.status == 403)
        let set = try await server.request(
            "POST", "/1/\(server.appID)/__options__/i/catalog", headers: admin, body: ["shared": true, "read_only": true])
        #expect(set.status == 200)
        let bad = try await server.request("POST", "/1/\(server.appID)/__options__/i/team", headers: admin, body: ["presence": "everyone"])
        #expect(bad.status == 400)
        #expect(try await server.request("POST", "/1/\(server.appID)/catalog/i/sword", headers: admin, body: ["price": 5]).status == 200)
        #expect(try await alice.request("GET", "catalog/i/sword").json == ["price": 5])
        #expect(try await bob.request("GET", "catalog/i/sword").json == ["price": 5])
        let write = try await bob.request("POST", "catalog/i/sword", body: ["price": 0])
        #expect(write.status == 403)
        #expect(try await server.request("GET", "/1/\(server.appID)/__options__/i/catalog", headers: admin).json == ["shared": true, "read_only": true])
        #expect(try await bob.request("GET", "__options__/i/catalog").json == ["shared": true, "read_only": true])
        #expect(try await bob.request("GET", "__options__/i/unset").json == [:])
    }
}
