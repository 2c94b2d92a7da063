import Foundation
import LockstepCore
@testable import LockstepServer
import Synchronization
import Testing

/// Webhook deliveries from a real server on 127.0.0.1 to a real receiver on 127.0.0.1: signed
/// batches in commit order, retries with the same `webhook-id`, 410, the retry period, no
/// redirects, a kilobyte of response kept, slow endpoints apart, secret rotation, and the admin
/// API's answers.
@Suite("Webhooks: deliveries")
struct WebhookDeliveryTests {
    /// Limits that make retries quick and allow the receiver on loopback.
    static var limits: Limits {
        var limits = TestServer.testLimits
        limits.webhooks.allowPrivateAddresses = true
        limits.webhooks.retryBaseSeconds = 0.05
        limits.webhooks.retryMaximumSeconds = 0.2
        limits.webhooks.pollSeconds = 0.1
        limits.webhooks.timeoutSeconds = 1
        limits.webhooks.leaseSeconds = 3
        return limits
    }

    /// Adds an endpoint through the admin API; answers its JSON (with its secret).
    static func add(_ server: TestServer, url: String, events: [String] = ["change"], buckets: [String] = []) async throws -> JSONValue {
        let added = try await server.request(
            "POST", "/1/\(server.appID)/__admin__/webhooks", headers: ["X-Simperium-Token": server.app.adminToken],
            body: ["url": .string(url), "events": .array(events.map(JSONValue.string)), "buckets": .array(buckets.map(JSONValue.string))])
        guard added.status == 201, let json = added.json else { throw TestServerError.unexpected(added) }
        return json
    }

    static func admin(_ server: TestServer, _ method: String, _ path: String, body: JSONValue? = nil) async throws -> TestResponse {
        try await server.request(
            method, "/1/\(server.appID)/__admin__/webhooks\(path)", headers: ["X-Simperium-Token": server.app.adminToken], body: body)
    }

    /// Whether `signature` (a `webhook-signature` value) holds a signature of the request by `secret`.
    static func verifies(_ request: WebhookTestReceiver.Received, secret: String) -> Bool {
        guard let secret = WebhookSecret(text: secret), let timestamp = Int64(request.headers["webhook-timestamp"] ?? "") else { return false }
        let expected = WebhookSignature.header(id: request.webhookID, timestamp: timestamp, body: request.body, secrets: [secret])
        return (request.headers["webhook-signature"] ?? "").split(separator: " ").contains { $0 == expected }
    }

    /// The distinct events received, in the order first received.
    static func events(_ requests: [WebhookTestReceiver.Received]) -> [JSONValue] {
        var seen = Set<String>()
        return requests.flatMap { $0.json?["events"]?.arrayValue ?? [] }.filter { seen.insert($0["id"]?.stringValue ?? "").inserted }
    }

    @Test(arguments: StoreKind.allCases)
    func deliversSignedEventsOfTheChosenBucketsInCommitOrder(_ kind: StoreKind) async throws {
        let receiver = try await WebhookTestReceiver.start()
        defer { Task { await receiver.stop() } }
        try await TestServer.with(kind, limits: Self.limits) { server in
            let endpoint = try await Self.add(server, url: receiver.url, buckets: ["notes", "__*.items"])
            let secret = try #require(endpoint["secret"]?.stringValue)
            #expect(secret.hasPrefix("whsec_") && endpoint["id"]?.stringValue?.hasPrefix("ep_") == true)
            let alice = try await server.createUser()
            let bob = try await server.createUser()
            // Writers at once, on two buckets wanted and one not.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (user, prefix) in [(alice, "a"), (bob, "b")] {
                    group.addTask {
                        for index in 0..<15 {
                            let wanted = try await user.request("POST", "notes/i/\(prefix)\(index)", body: ["n": .integer(Int64(index))])
                            let other = try await user.request("POST", "other/i/\(prefix)\(index)", body: ["n": 0])
                            #expect(wanted.status == 200 && other.status == 200)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await alice.request("DELETE", "notes/i/a3").status == 200)
            #expect(try await alice.request("POST", "__spaces__", body: ["name": "job-7"]).status == 201)
            #expect(try await alice.request("POST", "__job-7.items/i/sofa", body: ["room": "lounge"]).status == 200)

            let requests = try await receiver.wait { Self.events($0).count >= 32 }
            let events = Self.events(requests)
            #expect(events.count == 32, "\(events.count) events")
            #expect(requests.allSatisfy { Self.verifies($0, secret: secret) }, "every request is signed with the endpoint's secret")
            #expect(requests.allSatisfy { $0.webhookID.hasPrefix("msg_") && $0.headers["content-type"] == "application/json" })
            // In commit order: each event's position after the one before.
            let positions = events.compactMap { $0["id"]?.stringValue.flatMap { WebhookPosition($0.dropFirst(4)) } }
            #expect(positions == positions.sorted() && positions.count == events.count)
            #expect(events.allSatisfy { $0["type"] == "change" && $0["data"]?["bucket"] != "other" })
            // Each user's own changes in the order they made them.
            let alices = events.filter { $0["data"]?["owner"]?["id"]?.stringValue == alice.userID && $0["data"]?["bucket"] == "notes" }
            #expect(alices.compactMap { $0["data"]?["id"]?.stringValue } == (0..<15).map { "a\($0)" } + ["a3"])
            let removal = try #require(alices.last?["data"])
            #expect(removal["operation"] == "remove" && removal["value"] == nil && removal["version"] == 2)
            #expect(alices.first?["data"]?["author"]?["user"]?.stringValue == alice.userID)
            #expect(alices.first?["data"]?["value"] == ["n": 0])
            let inSpace = try #require(events.last?["data"])
            #expect(inSpace["bucket"] == "items" && inSpace["owner"] == ["kind": "space", "name": "job-7"] && inSpace["value"] == ["room": "lounge"])

            // The deliveries are listed, delivered, with the receiver's answer.
            let id = try #require(endpoint["id"]?.stringValue)
            // (The receiver's last answer may be on its way back to the server: recorded shortly.)
            var deliveries: [JSONValue] = []
            for _ in 0..<250 {
                deliveries = try await Self.admin(server, "GET", "/\(id)/deliveries").json?["deliveries"]?.arrayValue ?? []
                if !deliveries.isEmpty && deliveries.allSatisfy({ $0["state"] == "delivered" }) { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(!deliveries.isEmpty && deliveries.allSatisfy { $0["state"] == "delivered" && $0["lastAttempt"]?["status"] == 200 })
            let shown = try await Self.admin(server, "GET", "/\(id)")
            #expect(shown.json?["pending"]?["events"] == 0 && shown.json?["enabled"] == true, "\(shown)")
        }
    }

    @Test func retriesKeepTheirWebhookIDUntilA2xx() async throws {
        let answered = Mutex(0)
        let receiver = try await WebhookTestReceiver.start { _ in
            let count = answered.withLock { count in
                count += 1
                return count
            }
            return count <= 3 ? .init(status: 500, body: String(repeating: "e", count: 5000)) : .init()
        }
        defer { Task { await receiver.stop() } }
        try await TestServer.with(.sqlite, limits: Self.limits) { server in
            let endpoint = try await Self.add(server, url: receiver.url)
            let id = try #require(endpoint["id"]?.stringValue)
            let user = try await server.createUser()
            #expect(try await user.request("POST", "notes/i/n1", body: ["n": 1]).status == 200)
            let requests = try await receiver.wait { $0.count >= 4 }
            #expect(requests.count == 4)
            #expect(Set(requests.map(\.webhookID)).count == 1, "one delivery, the same webhook-id on every attempt")
            #expect(Set(requests.map(\.body)).count == 1, "the same events on every attempt")
            let timestamps = requests.compactMap { Int64($0.headers["webhook-timestamp"] ?? "") }
            #expect(timestamps.count == 4 && timestamps == timestamps.sorted(), "each attempt signed when it is sent")
            let delivery = try #require(try await Self.admin(server, "GET", "/\(id)/deliveries").json?["deliveries"]?[0])
            try await Task.sleep(for: .milliseconds(200))
            let settled = try #require(try await Self.admin(server, "GET", "/\(id)/deliveries").json?["deliveries"]?[0])
            #expect(settled["state"] == "delivered" && settled["attempts"] == 4, "\(delivery)")
            #expect(try server.metricValue("lockstep_webhook_failures_total{app=\"\(server.appID)\",endpoint=\"\(id)\"}") == 3)
        }
    }

    @Test func aFailedAttemptKeepsTheFirstKilobyteOfItsResponse() async throws {
        let receiver = try await WebhookTestReceiver.start { _ in .init(status: 503, body: String(repeating: "é", count: 3000)) }
        defer { Task { await receiver.stop() } }
        try await TestServer.with(.sqlite, limits: Self.limits) { server in
            let id = try #require(try await Self.add(server, url: receiver.url)["id"]?.stringValue)
            let user = try await server.createUser()
            #expect(try await user.request("POST", "notes/i/n1", body: ["n": 1]).status == 200)
            _ = try await receiver.wait { $0.count >= 2 }
            let delivery = try #require(try await Self.admin(server, "GET", "/\(id)/deliveries").json?["deliveries"]?[0])
            #expect(delivery["state"] == "pending")
            let last = try #require(delivery["lastAttempt"])
            #expect(last["status"] == 503 && last["error"]?.stringValue == "the endpoint answered 503")
            // 1,024 bytes: 512 two-byte characters.
            #expect(last["response"]?.stringValue?.utf8.count == 1024)
        }
    }

    @Test func goneDisablesAtOnceAndAReplaySendsTheSameDeliveryAgain() async throws {
        let receiver = try await WebhookTestReceiver.start { _ in .init(status: 410) }
        defer { Task { await receiver.stop() } }
        try await TestServer.with(.sqlite, limits: Self.limits) { server in
            let id = try #require(try await Self.add(server, url: receiver.url)["id"]?.stringValue)
            let user = try await server.createUser()
            #expect(try await user.request("POST", "notes/i/n1", body: ["n": 1]).status == 200)
            let gone = try await receiver.wait { !$0.isEmpty }
            var shown = try await Self.admin(server, "GET", "/\(id)").json
            for _ in 0..<100 where shown?["enabled"] != false {
                try await Task.sleep(for: .milliseconds(20))
                shown = try await Self.admin(server, "GET", "/\(id)").json
            }
            #expect(shown?["enabled"] == false && shown?["disabledReason"]?.stringValue?.contains("410") == true, "\(shown ?? .null)")
            // Nothing more is sent to a disabled endpoint, but its events are kept for it.
            #expect(try await user.request("POST", "notes/i/n2", body: ["n": 2]).status == 200)
            try await Task.sleep(for: .milliseconds(500))
            #expect(receiver.requests.count == 1)
            #expect(try await Self.admin(server, "GET", "/\(id)").json?["pending"]?["events"] == 2)

            receiver.answer { _ in .init() }
            let replay = try await Self.admin(server, "POST", "/\(id)/replay")
            #expect(replay.status == 200 && replay.json?["delivery"]?["id"]?.stringValue == gone[0].webhookID, "\(replay)")
            let after = try await receiver.wait { Self.events($0).count >= 2 && $0.count >= 3 }
            #expect(after[1].webhookID == gone[0].webhookID && after[1].body == gone[0].body, "the same delivery, again")
            #expect(Self.events(after).count == 2, "then what came after it")
        }
    }

    @Test func anEndpointFailingForTheWholeRetryPeriodIsDisabledWithTheReason() async throws {
        let receiver = try await WebhookTestReceiver.start { _ in .init(status: 502) }
        defer { Task { await receiver.stop() } }
        var limits = Self.limits
        limits.webhooks.retryPeriodSeconds = 0.5
        try await TestServer.with(.sqlite, limits: limits) { server in
            let id = try #require(try await Self.add(server, url: receiver.url)["id"]?.stringValue)
            let user = try await server.createUser()
            #expect(try await user.request("POST", "notes/i/n1", body: ["n": 1]).status == 200)
            var shown = try await Self.admin(server, "GET", "/\(id)").json
            for _ in 0..<200 where shown?["enabled"] != false {
                try await Task.sleep(for: .milliseconds(20))
                shown = try await Self.admin(server, "GET", "/\(id)").json
            }
            let reason = try #require(shown?["disabledReason"]?.stringValue)
            #expect(reason.contains("failed for") && reason.contains("the endpoint answered 502"), "\(reason)")
            let delivery = try #require(try await Self.admin(server, "GET", "/\(id)/deliveries").json?["deliveries"]?[0])
            #expect(delivery["state"] == "failed" && (delivery["attempts"]?.integerValue ?? 0) > 2, "\(delivery)")
        }
    }

    @Test func redirectsAreNotFollowed() async throws {
        let elsewhere = try await WebhookTestReceiver.start()
        defer { Task { await elsewhere.stop() } }
        let receiver = try await WebhookTestReceiver.start { _ in .init(status: 307, headers: [("Location", elsewhere.url)]) }
        defer { Task { await receiver.stop() } }
        try await TestServer.with(.sqlite, limits: Self.limits) { server in
            let id = try #require(try await Self.add(server, url: receiver.url)["id"]?.stringValue)
            let user = try await server.createUser()
            #expect(try await user.request("POST", "notes/i/n1", body: ["n": 1]).status == 200)
            _ = try await receiver.wait { $0.count >= 3 }
            #expect(elsewhere.requests.isEmpty)
            let delivery = try #require(try await Self.admin(server, "GET", "/\(id)/deliveries").json?["deliveries"]?[0])
            #expect(delivery["state"] == "pending" && delivery["lastAttempt"]?["status"] == 307)
        }
    }

    @Test func aSlowEndpointHoldsUpNoOther() async throws {
        let slow = try await WebhookTestReceiver.start { _ in .init(delay: .seconds(5)) }
        defer { Task { await slow.stop() } }
        let quick = try await WebhookTestReceiver.start()
        defer { Task { await quick.stop() } }
        try await TestServer.with(.sqlite, limits: Self.limits) { server in
            let slowID = try #require(try await Self.add(server, url: slow.url)["id"]?.stringValue)
            _ = try await Self.add(server, url: quick.url)
            let user = try await server.createUser()
            let started = ContinuousClock.now
            for index in 0..<5 { #expect(try await user.request("POST", "notes/i/n\(index)", body: ["n": 1]).status == 200) }
            let written = ContinuousClock.now - started
            let requests = try await quick.wait(for: .seconds(5)) { Self.events($0).count >= 5 }
            #expect(Self.events(requests).count == 5)
            #expect(ContinuousClock.now - started < .seconds(3), "the quick endpoint had everything within the slow one's timeout")
            #expect(written < .seconds(3), "writes did not wait for either")
            // The slow one times out (1 s here) and is retried.
            _ = try await slow.wait { $0.count >= 2 }
            let delivery = try #require(try await Self.admin(server, "GET", "/\(slowID)/deliveries").json?["deliveries"]?[0])
            #expect(delivery["lastAttempt"]?["error"]?.stringValue?.contains("no response within 1") == true, "\(delivery)")
        }
    }

    @Test func rotationSignsWithBothSecretsDuringTheOverlap() async throws {
        let receiver = try await WebhookTestReceiver.start()
        defer { Task { await receiver.stop() } }
        try await TestServer.with(.sqlite, limits: Self.limits) { server in
            let endpoint = try await Self.add(server, url: receiver.url)
            let id = try #require(endpoint["id"]?.stringValue)
            let old = try #require(endpoint["secret"]?.stringValue)
            let rotated = try await Self.admin(server, "POST", "/\(id)/rotate", body: ["overlapSeconds": 60])
            let new = try #require(rotated.json?["secret"]?.stringValue)
            #expect(new != old && rotated.json?["previousSecretUntil"] != nil)
            let user = try await server.createUser()
            #expect(try await user.request("POST", "notes/i/n1", body: ["n": 1]).status == 200)
            let first = try #require(try await receiver.wait { !$0.isEmpty }.first)
            #expect(first.headers["webhook-signature"]?.split(separator: " ").count == 2)
            #expect(Self.verifies(first, secret: new) && Self.verifies(first, secret: old))
            // No overlap: the old secret stops at once.
            let again = try await Self.admin(server, "POST", "/\(id)/rotate", body: ["overlapSeconds": 0])
            let newest = try #require(again.json?["secret"]?.stringValue)
            #expect(try await user.request("POST", "notes/i/n2", body: ["n": 2]).status == 200)
            let second = try #require(try await receiver.wait { $0.count >= 2 }.last)
            #expect(Self.verifies(second, secret: newest) && !Self.verifies(second, secret: new) && !Self.verifies(second, secret: old))
            // A secret never comes back from the API but at its making.
            #expect(try await Self.admin(server, "GET", "/\(id)").text.contains("whsec_") == false)
            #expect(try await Self.admin(server, "GET", "").text.contains("whsec_") == false)
        }
    }

    @Test func theTestCommandSendsOneSignedEventNow() async throws {
        let receiver = try await WebhookTestReceiver.start { _ in .init(status: 202, body: "thanks") }
        defer { Task { await receiver.stop() } }
        try await TestServer.with(.sqlite, limits: Self.limits) { server in
            let endpoint = try await Self.add(server, url: receiver.url)
            let id = try #require(endpoint["id"]?.stringValue)
            let tested = try await Self.admin(server, "POST", "/\(id)/test")
            #expect(tested.json?["status"] == 202 && tested.json?["response"] == "thanks", "\(tested)")
            let request = try #require(receiver.requests.first)
            #expect(Self.verifies(request, secret: try #require(endpoint["secret"]?.stringValue)))
            #expect(request.json?["events"]?[0]?["type"] == "webhook.test")
            receiver.answer { _ in .init(status: 500) }
            #expect(try await Self.admin(server, "POST", "/\(id)/test").json?["status"] == 500)
        }
    }

    @Test func endpointsOnPrivateAddressesAreRefusedUnlessAllowed() async throws {
        let receiver = try await WebhookTestReceiver.start()
        defer { Task { await receiver.stop() } }
        var limits = Self.limits
        limits.webhooks.allowPrivateAddresses = false
        try await TestServer.with(.sqlite, limits: limits) { server in
            for (url, reason) in [
                (receiver.url, "loopback"), ("http://localhost:\(receiver.port)/", "loopback"), ("http://10.1.2.3/hook", "private"),
                ("http://169.254.169.254/latest/meta-data", "link-local"), ("http://[::1]:\(receiver.port)/", "loopback"),
                ("http://[::ffff:192.168.0.1]/", "private"), ("http://[fd00::1]/", "private"), ("http://100.64.0.1/", "shared"),
            ] {
                let refused = try await Self.admin(server, "POST", "", body: ["url": .string(url), "events": ["change"]])
                #expect(refused.status == 400 && refused.errorMessage?.contains(reason) == true && refused.errorMessage?.contains("--webhooks-allow-private") == true, "\(url): \(refused)")
            }
            for (body, problem) in [
                (["url": "ftp://example.com/", "events": ["change"]] as JSONValue, "http:// or https://"),
                (["url": "https://user:pw@example.com/", "events": ["change"]], "credentials"),
                (["url": "https://example.com/", "events": ["changes"]], "is not an event type"),
                (["url": "https://example.com/", "events": []], "\"events\""),
                (["url": "https://example.com/", "events": ["change"], "buckets": ["no spaces"]], "is not a bucket pattern"),
                (["events": ["change"]], "\"url\""),
            ] {
                let refused = try await Self.admin(server, "POST", "", body: body)
                #expect(refused.status == 400 && refused.errorMessage?.contains(problem) == true, "\(body): \(refused)")
            }
            // Checked again at each request, against the address it connects to: an endpoint that
            // got in (added while private addresses were allowed) is refused at delivery.
            let sneaked = try await server.services.store.insertWebhookEndpoint(WebhookStoreTests.endpoint(server.appID, url: "http://localhost:\(receiver.port)/hook"))
            let user = try await server.createUser()
            #expect(try await user.request("POST", "notes/i/n1", body: ["n": 1]).status == 200)
            var delivery: JSONValue?
            for _ in 0..<100 where delivery?["lastAttempt"] == nil {
                try await Task.sleep(for: .milliseconds(20))
                delivery = try await Self.admin(server, "GET", "/\(sneaked.id)/deliveries").json?["deliveries"]?[0]
            }
            #expect(delivery?["lastAttempt"]?["error"]?.stringValue?.contains("loopback address") == true, "\(delivery ?? .null)")
            #expect(receiver.requests.isEmpty)
        }
    }

    @Test func onlyTheAdminTokenManagesWebhooks() async throws {
        try await TestServer.with(.sqlite, limits: Self.limits) { server in
            let user = try await server.createUser()
            for (method, path) in [("GET", ""), ("POST", ""), ("GET", "/ep_x"), ("DELETE", "/ep_x"), ("POST", "/ep_x/test"), ("GET", "/ep_x/deliveries")] {
                let answer = try await server.request(method, "/1/\(server.appID)/__admin__/webhooks\(path)", headers: ["X-Simperium-Token": user.token])
                #expect(answer.status == 403, "\(method) \(path): \(answer)")
            }
            #expect(try await Self.admin(server, "GET", "/ep_nope").status == 404)
            #expect(try await Self.admin(server, "DELETE", "/ep_nope").status == 404)
        }
    }

    @Test func changesToASpacesMembersAreEvents() async throws {
        let receiver = try await WebhookTestReceiver.start()
        defer { Task { await receiver.stop() } }
        try await TestServer.with(.sqlite, limits: Self.limits) { server in
            _ = try await Self.add(server, url: receiver.url, events: ["space.member"])
            let owner = try await server.createUser("owner@example.com")
            #expect(try await owner.request("POST", "__spaces__", body: ["name": "job-1"]).status == 201)
            #expect(try await owner.request("POST", "__spaces__/job-1/members", body: ["email": "sam@example.com", "role": "writer"]).status == 200)
            let sam = try await server.createUser("sam@example.com")
            #expect(try await owner.request("POST", "__spaces__/job-1/members", body: ["email": "sam@example.com", "role": "reader"]).status == 200)
            #expect(try await owner.request("DELETE", "__spaces__/job-1/members/sam@example.com").status == 200)
            #expect(try await owner.request("POST", "notes/i/n1", body: ["n": 1]).status == 200, "a change is no space.member event")
            let events = Self.events(try await receiver.wait { Self.events($0).count >= 4 })
            #expect(events.map { $0["data"]?["action"]?.stringValue ?? "" } == ["added", "invited", "changed", "removed"])
            #expect(events.allSatisfy { $0["type"] == "space.member" && $0["data"]?["space"] == "job-1" })
            #expect(events[0]["data"]?["user"]?.stringValue == owner.userID && events[0]["data"]?["role"] == "owner")
            #expect(events[2]["data"]?["user"]?.stringValue == sam.userID && events[2]["data"]?["previousRole"] == "writer")
            #expect(events[3]["data"]?["by"]?["user"]?.stringValue == owner.userID)
        }
    }
}
