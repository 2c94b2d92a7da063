import Foundation
import LockstepCore
@testable import LockstepServer
import Testing

/// What both stores keep of webhooks: a change's events recorded in the change's own
/// transaction (and only when an endpoint wants them), the order of events, endpoints' cursors,
/// deliveries and their leases. A real SQLite file and a real PostgreSQL schema each.
@Suite("Webhooks: the store (SQLite and PostgreSQL)")
struct WebhookStoreTests {
    static func endpoint(_ appID: String, url: String = "http://127.0.0.1:9/hook", types: Set<WebhookEventType> = [.change], buckets: [String] = [])
        -> WebhookEndpoint
    {
        WebhookEndpoint(
            appID: appID, id: WebhookEndpoint.newID(), url: url,
            filter: WebhookFilter(types: types, buckets: buckets.compactMap(BucketPattern.init)), description: "test",
            secrets: WebhookSecrets(current: .random()), createdAt: 5)
    }

    @Test(arguments: StoreKind.allCases)
    func changeEventsAreRecordedWithTheirChangesOnlyWhenWanted(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            let notes = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user("u1"), bucket: "notes"))
            let other = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user("u1"), bucket: "other"))
            // No endpoint: nothing is recorded.
            try await notes.commit("before", ["n": 0])
            #expect(try await RawRows.read(kind, store, "SELECT CAST(COUNT(*) AS TEXT) FROM webhook_events") == ["0"])

            let added = try await store.insertWebhookEndpoint(Self.endpoint(app, buckets: ["notes"]))
            #expect(added.cursor.sequence == 1, "the endpoint starts after the app's latest change")
            let (created, _) = try await notes.commit("n1", ["title": "milk"])
            try await other.commit("o1", ["title": "not wanted"])
            _ = try await notes.group([notes.change("n1", ["title": "eggs"]), notes.removal("n1")])
            // A change refused (a version the object never had) is no event.
            _ = try await notes.put("n1", ["title": "late"], source: 7)

            let events = try await store.webhookEvents(appID: app, after: .start, limit: 100)
            #expect(events.map(\.position) == [2, 4, 5].map { WebhookPosition(sequence: $0, step: 0) })
            #expect(events.allSatisfy { $0.type == .change && $0.bucket == "notes" && $0.createdAt == notes.time })
            let first = try JSONValue(parsing: events[0].payload)
            #expect(first["app"]?.stringValue == app)
            #expect(first["bucket"] == "notes" && first["id"] == "n1" && first["version"] == 1 && first["operation"] == "modify")
            #expect(first["value"] == ["title": "milk"])
            #expect(first["owner"] == ["kind": "user", "id": "u1"])
            #expect(first["author"] == ["client": "client-a", "user": .null])
            #expect(first["ccid"]?.stringValue == created.changeID)
            #expect(first["committedAt"] == .integer(notes.time / 1_000_000))
            #expect(first["diff"] != nil)
            let second = try JSONValue(parsing: events[1].payload)
            #expect(second["value"] == ["title": "eggs"] && second["version"] == 2, "each change of a group carries its own version's value")
            let removal = try JSONValue(parsing: events[2].payload)
            #expect(removal["operation"] == "remove" && removal["value"] == nil && removal["version"] == 3)
            #expect(try await store.webhookBacklog(added).events == 3)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aGroupThatFailsRecordsNeitherItsChangesNorItsEvents(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            _ = try await store.insertWebhookEndpoint(Self.endpoint(app))
            let writer = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user("u1"), bucket: "notes"))
            // The database refuses the second change's event: the transaction fails as a whole.
            switch kind {
            case .sqlite:
                try await RawRows.execute(kind, store, """
                    CREATE TRIGGER refuse_boom BEFORE INSERT ON webhook_events WHEN NEW.payload LIKE '%boom%'
                    BEGIN SELECT RAISE(ABORT, 'boom refused'); END
                    """)
            case .postgres:
                try await RawRows.execute(kind, store, """
                    CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN IF NEW.payload LIKE '%boom%' THEN RAISE EXCEPTION 'boom refused'; END IF; RETURN NEW; END $$
                    """)
                try await RawRows.execute(kind, store, """
                    CREATE TRIGGER refuse_boom BEFORE INSERT ON webhook_events FOR EACH ROW EXECUTE FUNCTION refuse_boom()
                    """)
            }
            await #expect(throws: (any Error).self) {
                try await writer.group([writer.change("fine", ["n": 1]), writer.change("bad", ["n": "boom"])])
            }
            #expect(try await store.object(writer.scope, key: "fine") == nil)
            #expect(try await store.webhookEvents(appID: app, after: .start, limit: 10).isEmpty)
            try await writer.commit("fine", ["n": 2])
            #expect(try await store.webhookEvents(appID: app, after: .start, limit: 10).count == 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func otherEventsTakeTheirPlaceAfterTheLatestChange(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            _ = try await store.insertWebhookEndpoint(Self.endpoint(app, types: [.change, .blob]))
            let writer = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .shared, bucket: "catalog"))
            try await writer.commit("a", ["n": 1])
            try await store.recordWebhookEvents(appID: app, [
                NewWebhookEvent(type: .blob, createdAt: 9, payload: #"{"n":1}"#), NewWebhookEvent(type: .spaceMember, createdAt: 9, payload: "{}"),
            ])
            try await store.recordWebhookEvents(appID: app, [NewWebhookEvent(type: .blob, createdAt: 9, payload: #"{"n":2}"#)])
            try await writer.commit("b", ["n": 2])
            let events = try await store.webhookEvents(appID: app, after: .start, limit: 10)
            // The space.member event is wanted by no endpoint.
            #expect(events.map(\.position.description) == ["1.0", "1.1", "1.2", "2.0"])
            #expect(events.map(\.type) == [.change, .blob, .blob, .change])
            #expect(try await store.webhookEvents(appID: app, after: WebhookPosition(sequence: 1, step: 1), limit: 10).count == 2)
            #expect(try await store.webhookEvents(appID: app, from: WebhookPosition(sequence: 1, step: 1), through: WebhookPosition(sequence: 1, step: 2)).count == 2)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func endpointsKeepTheirSecretsSealedAndComeBackAsTheyWere(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            let added = try await store.insertWebhookEndpoint(Self.endpoint(app, types: [.change, .presence], buckets: ["items", "__*.items"]))
            #expect(try await store.webhookEndpoint(appID: app, id: added.id) == added)
            #expect(try await store.webhookEndpoints(appID: app) == [added])
            let stored = try await RawRows.read(kind, store, "SELECT secret FROM webhook_endpoints")
            #expect(stored.count == 1 && !stored[0].contains(added.secrets.current.text) && ServerKey.isSealed(stored[0]))

            let rotated = added.secrets.rotated(to: .random(), now: 100, overlap: 50)
            #expect(try await store.setWebhookSecrets(appID: app, id: added.id, secrets: rotated))
            #expect(try await store.webhookEndpoint(appID: app, id: added.id)?.secrets == rotated)
            #expect(rotated.signing(at: 120) == [rotated.current, added.secrets.current])
            #expect(rotated.signing(at: 150) == [rotated.current])

            #expect(try await store.deleteWebhookEndpoint(appID: app, id: added.id))
            #expect(try await !store.deleteWebhookEndpoint(appID: app, id: added.id))
            #expect(try await store.webhookEndpoints(appID: app).isEmpty)
            // No endpoint left: changes record nothing again.
            try await StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user("u"), bucket: "items")).commit("x", ["n": 1])
            #expect(try await store.webhookEvents(appID: app, after: .start, limit: 10).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deliveriesMoveTheCursorOnlyForTheNodeHoldingTheLease(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            let endpoint = try await store.insertWebhookEndpoint(Self.endpoint(app))
            let writer = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user("u1"), bucket: "notes"))
            for index in 1...3 { try await writer.commit("n\(index)", ["n": .integer(Int64(index))]) }
            #expect(try await store.webhookEndpointsWithWork(now: 10, limit: 10).map(\.id) == [endpoint.id])

            #expect(try await store.leaseWebhookEndpoint(appID: app, id: endpoint.id, node: "a", until: 100, now: 10) != nil)
            #expect(try await store.leaseWebhookEndpoint(appID: app, id: endpoint.id, node: "b", until: 100, now: 20) == nil)
            #expect(try await store.webhookEndpointsWithWork(now: 20, limit: 10).isEmpty, "a leased endpoint is not another node's work")
            let events = try await store.webhookEvents(appID: app, after: endpoint.cursor, limit: 10)
            var delivery = WebhookDelivery(
                appID: app, endpointID: endpoint.id, id: WebhookDelivery.newID(), first: events[0].position, last: events[1].position,
                eventCount: 2, createdAt: 20, nextAttemptAt: 20)
            #expect(try await !store.insertWebhookDelivery(delivery, skippedThrough: nil, node: "b"))
            #expect(try await store.insertWebhookDelivery(delivery, skippedThrough: nil, node: "a"))
            #expect(try await store.pendingWebhookDelivery(appID: app, endpointID: endpoint.id) == delivery)

            // Past the lease, another node takes it over, and the first node's writes change nothing.
            #expect(try await store.leaseWebhookEndpoint(appID: app, id: endpoint.id, node: "b", until: 300, now: 150) != nil)
            delivery.state = .delivered
            delivery.attempts = 1
            delivery.finishedAt = 160
            #expect(try await !store.recordWebhookAttempt(delivery, disabling: nil, node: "a"))
            #expect(try await store.webhookEndpoint(appID: app, id: endpoint.id)?.cursor == endpoint.cursor)
            #expect(try await store.recordWebhookAttempt(delivery, disabling: nil, node: "b"))
            #expect(try await store.webhookEndpoint(appID: app, id: endpoint.id)?.cursor == events[1].position)
            #expect(try await store.pendingWebhookDelivery(appID: app, endpointID: endpoint.id) == nil)
            #expect(try await store.webhookDeliveries(appID: app, endpointID: endpoint.id, before: nil, limit: 10) == [delivery])
            #expect(try await store.webhookBacklog(try #require(try await store.webhookEndpoint(appID: app, id: endpoint.id))).events == 1)

            // Disabled with a reason; a replay enables it and makes the failed delivery pending again, same id.
            var failing = WebhookDelivery(
                appID: app, endpointID: endpoint.id, id: WebhookDelivery.newID(), first: events[2].position, last: events[2].position,
                eventCount: 1, createdAt: 170, nextAttemptAt: 170)
            #expect(try await store.insertWebhookDelivery(failing, skippedThrough: nil, node: "b"))
            failing.state = .failed
            failing.attempts = 9
            failing.finishedAt = 400
            #expect(try await store.recordWebhookAttempt(failing, disabling: .init(at: 400, reason: "gone"), node: "b"))
            let disabled = try #require(try await store.webhookEndpoint(appID: app, id: endpoint.id))
            #expect(disabled.disabled == WebhookEndpoint.Disabled(at: 400, reason: "gone"))
            #expect(try await store.webhookEndpointsWithWork(now: 500, limit: 10).isEmpty, "a disabled endpoint has no work")
            guard case .resumed(let resumed?) = try await store.redeliverWebhook(appID: app, endpointID: endpoint.id, delivery: nil, now: 600)
            else { Issue.record("the failed delivery was not made pending"); return }
            #expect(resumed.id == failing.id && resumed.state == .pending && resumed.attempts == 0 && resumed.nextAttemptAt == 600)
            #expect(try await store.webhookEndpoint(appID: app, id: endpoint.id)?.disabled == nil)
            #expect(try await store.redeliverWebhook(appID: app, endpointID: endpoint.id, delivery: "msg_none", now: 600) == .noSuchDelivery)
            #expect(try await store.redeliverWebhook(appID: app, endpointID: "ep_none", delivery: nil, now: 600) == .noSuchEndpoint)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func pruningKeepsWhatAnEndpointIsStillOwed(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            let endpoint = try await store.insertWebhookEndpoint(Self.endpoint(app))
            let writer = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user("u1"), bucket: "notes"))
            for index in 1...4 { try await writer.commit("n\(index)", ["n": .integer(Int64(index))]) }
            let events = try await store.webhookEvents(appID: app, after: .start, limit: 10)
            #expect(try await store.leaseWebhookEndpoint(appID: app, id: endpoint.id, node: "a", until: .max, now: 0) != nil)
            #expect(try await store.skipWebhookEvents(appID: app, endpointID: endpoint.id, through: events[1].position, node: "a"))
            // Older than the cutoff, but the endpoint has had only the first two.
            try await store.pruneWebhooks(before: .max)
            #expect(try await store.webhookEvents(appID: app, after: .start, limit: 10).map(\.position) == Array(events[2...]).map(\.position))
        }
    }
}
