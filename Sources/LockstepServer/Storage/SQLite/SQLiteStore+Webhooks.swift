import GRDB

/// Webhook endpoints, their events and deliveries (see ``WebhookStore``). One writer orders
/// every write: a change's events, an endpoint's insertion (which reads where its app's events
/// stand) and the registry of what endpoints want (``WebhookInterest``), which changes in the
/// same write as the endpoints.
extension SQLiteStore {
    // MARK: Endpoints

    public func insertWebhookEndpoint(_ endpoint: WebhookEndpoint) async throws -> WebhookEndpoint {
        try await pool.write { db in
            guard let sequence = try appSequence(db, endpoint.appID) else { throw WebhookStoreError.noSuchApp(endpoint.appID) }
            let step = try Int64.fetchOne(
                db, sql: "SELECT MAX(step) FROM webhook_events WHERE app_id = ? AND sequence = ?", arguments: [endpoint.appID, sequence])
            var inserted = endpoint
            inserted.cursor = WebhookPosition(sequence: sequence, step: step ?? -1)
            let named: [(any DatabaseValueConvertible)?] = [
                inserted.appID, inserted.id, inserted.url, WebhookStoredForm.types(inserted.filter),
                WebhookStoredForm.buckets(inserted.filter), inserted.description,
            ]
            let times: [(any DatabaseValueConvertible)?] = [
                inserted.createdAt, inserted.disabled?.at, inserted.disabled?.reason, inserted.cursor.sequence, inserted.cursor.step,
            ]
            let values = named + sealedSecrets(inserted.secrets, appID: inserted.appID, endpointID: inserted.id) + times
            try db.execute(
                sql: """
                    INSERT INTO webhook_endpoints (app_id, id, url, events, buckets, description, secret, previous_secret,
                        previous_secret_until, created_at, disabled_at, disabled_reason, cursor_sequence, cursor_step)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: StatementArguments(values))
            try reloadWebhookInterest(db, appID: endpoint.appID)
            return inserted
        }
    }

    public func webhookEndpoints(appID: String) async throws -> [WebhookEndpoint] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM webhook_endpoints WHERE app_id = ? ORDER BY created_at, id", arguments: [appID])
                .map(webhookEndpoint)
        }
    }

    public func webhookEndpoint(appID: String, id: String) async throws -> WebhookEndpoint? {
        try await pool.read { db in try webhookEndpoint(db, appID: appID, id: id) }
    }

    public func deleteWebhookEndpoint(appID: String, id: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM webhook_endpoints WHERE app_id = ? AND id = ?", arguments: [appID, id])
            guard db.changesCount > 0 else { return false }
            try db.execute(sql: "DELETE FROM webhook_deliveries WHERE app_id = ? AND endpoint_id = ?", arguments: [appID, id])
            try reloadWebhookInterest(db, appID: appID)
            return true
        }
    }

    public func setWebhookSecrets(appID: String, id: String, secrets: WebhookSecrets) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE webhook_endpoints SET secret = ?, previous_secret = ?, previous_secret_until = ? WHERE app_id = ? AND id = ?",
                arguments: StatementArguments(sealedSecrets(secrets, appID: appID, endpointID: id) + [appID, id]))
            return db.changesCount > 0
        }
    }

    public func redeliverWebhook(appID: String, endpointID: String, delivery: String?, now: Int64) async throws -> WebhookRedelivery {
        try await pool.write { db in
            guard let endpoint = try webhookEndpoint(db, appID: appID, id: endpointID) else { return .noSuchEndpoint }
            var chosen: String? = delivery
            if chosen == nil, let disabled = endpoint.disabled {
                // The delivery the endpoint was disabled with: failed at the moment it was.
                chosen = try String.fetchOne(
                    db,
                    sql: """
                        SELECT id FROM webhook_deliveries WHERE app_id = ? AND endpoint_id = ? AND state = 'failed' AND finished_at = ?
                        ORDER BY first_sequence, first_step LIMIT 1
                        """,
                    arguments: [appID, endpointID, disabled.at])
            }
            if let chosen {
                try db.execute(
                    sql: """
                        UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = ?, first_attempt_at = NULL,
                            finished_at = NULL
                        WHERE app_id = ? AND endpoint_id = ? AND id = ?
                        """,
                    arguments: [now, appID, endpointID, chosen])
                guard db.changesCount > 0 else { return .noSuchDelivery }
            }
            try db.execute(
                sql: "UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL WHERE app_id = ? AND id = ?",
                arguments: [appID, endpointID])
            return .resumed(try chosen.flatMap { try webhookDelivery(db, appID: appID, endpointID: endpointID, id: $0) })
        }
    }

    /// One writer makes every change to endpoints: the registry cannot be behind.
    public func refreshWebhookInterest() async throws {}

    // MARK: Events

    /// Records the events of a group's changes (``ChangeEvents``), in its write transaction.
    func recordChangeEvents(_ writes: GroupWrites, _ group: ChangeGroup, interest: [String: WebhookInterest.App], _ db: Database) throws {
        let spaces = ChangeEvents.spacesNamed(by: writes, interest: interest)
        var names: [SpaceKey: String] = [:]
        if !spaces.isEmpty {
            let (known, unknown) = spaceNames.lookUp(spaces)
            names = known
            var found: [SpaceKey: String] = [:]
            for space in unknown {
                if let name = try String.fetchOne(
                    db.cachedStatement(sql: "SELECT name FROM spaces WHERE app_id = ? AND id = ?"), arguments: [space.appID, space.spaceID])
                {
                    found[space] = name
                }
            }
            spaceNames.remember(found)
            names.merge(found) { _, new in new }
        }
        let records = ChangeEvents.records(writes, group, interest: interest, spaceNames: names)
        guard !records.isEmpty else { return }
        let insert = try DirectStatement(db.cachedStatement(sql: Self.insertEventSQL))
        for record in records { try insert.run(Self.eventArguments(record)) }
    }

    static let insertEventSQL =
        "INSERT INTO webhook_events (app_id, sequence, step, type, bucket, created_at, payload) VALUES (?, ?, ?, ?, ?, ?, ?)"

    static func eventArguments(_ record: WebhookEventRecord) -> [SQLiteArgument] {
        [
            .text(record.appID), SQLiteArgument(record.position.sequence), SQLiteArgument(record.position.step), .text(record.type.rawValue),
            SQLiteArgument(record.bucket), SQLiteArgument(record.createdAt), .text(record.payload),
        ]
    }

    public func recordWebhookEvents(appID: String, _ events: [NewWebhookEvent]) async throws {
        let wanted = events.filter { webhookInterest.wants(appID: appID, $0.type, bucket: $0.bucket) }
        guard !wanted.isEmpty else { return }
        try await pool.write { db in
            guard let sequence = try appSequence(db, appID) else { throw WebhookStoreError.noSuchApp(appID) }
            var step = (try Int64.fetchOne(
                db, sql: "SELECT MAX(step) FROM webhook_events WHERE app_id = ? AND sequence = ?", arguments: [appID, sequence]) ?? -1)
            let insert = try DirectStatement(db.cachedStatement(sql: Self.insertEventSQL))
            for event in wanted {
                step += 1
                try insert.run(Self.eventArguments(WebhookEventRecord(
                    appID: appID, position: WebhookPosition(sequence: sequence, step: step), type: event.type, bucket: event.bucket,
                    createdAt: event.createdAt, payload: event.payload)))
            }
        }
    }

    public func spaceName(appID: String, spaceID: String) async throws -> String? {
        let key = SpaceKey(appID: appID, spaceID: spaceID)
        if let known = spaceNames.lookUp([key]).known[key] { return known }
        let name = try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT name FROM spaces WHERE app_id = ? AND id = ?", arguments: [appID, spaceID])
        }
        if let name { spaceNames.remember([key: name]) }
        return name
    }

    public func webhookEvents(appID: String, after position: WebhookPosition, limit: Int) async throws -> [WebhookEventRecord] {
        try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT * FROM webhook_events WHERE app_id = ? AND (sequence > ? OR (sequence = ? AND step > ?))
                    ORDER BY sequence, step LIMIT ?
                    """),
                arguments: [appID, position.sequence, position.sequence, position.step, limit]
            ).map(Self.webhookEvent)
        }
    }

    public func webhookEvents(appID: String, from first: WebhookPosition, through last: WebhookPosition) async throws
        -> [WebhookEventRecord]
    {
        try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT * FROM webhook_events WHERE app_id = ? AND (sequence > ? OR (sequence = ? AND step >= ?))
                        AND (sequence < ? OR (sequence = ? AND step <= ?))
                    ORDER BY sequence, step
                    """),
                arguments: [appID, first.sequence, first.sequence, first.step, last.sequence, last.sequence, last.step]
            ).map(Self.webhookEvent)
        }
    }

    public func webhookBacklog(_ endpoint: WebhookEndpoint) async throws -> (events: Int, oldest: Int64?) {
        try await pool.read { db in
            let types = endpoint.filter.types.map { "'\($0.rawValue)'" }.joined(separator: ",")
            // Bucket patterns as GLOBs: a pattern's other characters mean themselves in one.
            let patterns = endpoint.filter.buckets.map(\.text)
            let buckets = patterns.isEmpty ? "" : " AND (bucket IS NULL OR " + patterns.map { _ in "bucket GLOB ?" }.joined(separator: " OR ") + ")"
            let arguments: [(any DatabaseValueConvertible)?] = [
                endpoint.appID, endpoint.cursor.sequence, endpoint.cursor.sequence, endpoint.cursor.step,
            ]
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) AS events, MIN(created_at) AS oldest FROM webhook_events
                    WHERE app_id = ? AND (sequence > ? OR (sequence = ? AND step > ?)) AND type IN (\(types))\(buckets)
                    """,
                arguments: StatementArguments(arguments + patterns.map { $0 as (any DatabaseValueConvertible)? }))
            return (row?["events"] ?? 0, row?["oldest"])
        }
    }

    // MARK: Deliveries

    public func webhookEndpointsWithWork(now: Int64, limit: Int) async throws -> [WebhookEndpoint] {
        try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT * FROM webhook_endpoints e
                    WHERE e.disabled_at IS NULL AND (e.lease_until IS NULL OR e.lease_until <= ?1)
                        AND (EXISTS (SELECT 1 FROM webhook_deliveries d
                                     WHERE d.app_id = e.app_id AND d.endpoint_id = e.id AND d.state = 'pending' AND d.next_attempt_at <= ?1)
                             OR EXISTS (SELECT 1 FROM webhook_events v
                                        WHERE v.app_id = e.app_id
                                            AND (v.sequence > e.cursor_sequence OR (v.sequence = e.cursor_sequence AND v.step > e.cursor_step))))
                    LIMIT ?2
                    """),
                arguments: [now, limit]
            ).map(webhookEndpoint)
        }
    }

    public func leaseWebhookEndpoint(appID: String, id: String, node: String, until: Int64, now: Int64) async throws -> WebhookEndpoint? {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_endpoints SET lease_node = ?, lease_until = ?
                    WHERE app_id = ? AND id = ? AND disabled_at IS NULL AND (lease_node = ? OR lease_until IS NULL OR lease_until <= ?)
                    """,
                arguments: [node, until, appID, id, node, now])
            guard db.changesCount > 0 else { return nil }
            return try webhookEndpoint(db, appID: appID, id: id)
        }
    }

    public func releaseWebhookEndpoint(appID: String, id: String, node: String) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE webhook_endpoints SET lease_node = NULL, lease_until = NULL WHERE app_id = ? AND id = ? AND lease_node = ?",
                arguments: [appID, id, node])
        }
    }

    public func releaseStaleWebhookLeases() async throws {
        try await pool.write { db in try db.execute(sql: "UPDATE webhook_endpoints SET lease_node = NULL, lease_until = NULL") }
    }

    public func pendingWebhookDelivery(appID: String, endpointID: String) async throws -> WebhookDelivery? {
        try await pool.read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: """
                    SELECT * FROM webhook_deliveries WHERE app_id = ? AND endpoint_id = ? AND state = 'pending'
                    ORDER BY first_sequence, first_step LIMIT 1
                    """),
                arguments: [appID, endpointID]
            ).map(Self.webhookDelivery)
        }
    }

    public func insertWebhookDelivery(_ delivery: WebhookDelivery, skippedThrough: WebhookPosition?, node: String) async throws -> Bool {
        try await pool.write { db in
            guard try Self.holdsLease(db, appID: delivery.appID, endpointID: delivery.endpointID, node: node) else { return false }
            if let skippedThrough { try Self.advanceCursor(db, appID: delivery.appID, endpointID: delivery.endpointID, to: skippedThrough) }
            try db.execute(
                sql: """
                    INSERT INTO webhook_deliveries (app_id, endpoint_id, id, first_sequence, first_step, last_sequence, last_step,
                        event_count, created_at, state, attempts, next_attempt_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    delivery.appID, delivery.endpointID, delivery.id, delivery.first.sequence, delivery.first.step, delivery.last.sequence,
                    delivery.last.step, delivery.eventCount, delivery.createdAt, delivery.state.rawValue, delivery.attempts,
                    delivery.nextAttemptAt,
                ])
            return true
        }
    }

    public func skipWebhookEvents(appID: String, endpointID: String, through position: WebhookPosition, node: String) async throws -> Bool {
        try await pool.write { db in
            guard try Self.holdsLease(db, appID: appID, endpointID: endpointID, node: node) else { return false }
            try Self.advanceCursor(db, appID: appID, endpointID: endpointID, to: position)
            return true
        }
    }

    public func recordWebhookAttempt(_ delivery: WebhookDelivery, disabling: WebhookEndpoint.Disabled?, node: String) async throws -> Bool {
        try await pool.write { db in
            guard try Self.holdsLease(db, appID: delivery.appID, endpointID: delivery.endpointID, node: node) else { return false }
            let attempt = delivery.lastAttempt
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries SET state = ?, attempts = ?, next_attempt_at = ?, first_attempt_at = ?, last_attempt_at = ?,
                        last_status = ?, last_error = ?, last_response = ?, last_duration = ?, finished_at = ?
                    WHERE app_id = ? AND endpoint_id = ? AND id = ?
                    """,
                arguments: [
                    delivery.state.rawValue, delivery.attempts, delivery.nextAttemptAt, delivery.firstAttemptAt, attempt?.at, attempt?.status,
                    attempt?.error, attempt?.response, attempt?.durationNanoseconds, delivery.finishedAt, delivery.appID,
                    delivery.endpointID, delivery.id,
                ])
            if delivery.state == .delivered {
                try Self.advanceCursor(db, appID: delivery.appID, endpointID: delivery.endpointID, to: delivery.last)
            }
            if let disabling {
                try db.execute(
                    sql: """
                        UPDATE webhook_endpoints SET disabled_at = ?, disabled_reason = ?, lease_node = NULL, lease_until = NULL
                        WHERE app_id = ? AND id = ?
                        """,
                    arguments: [disabling.at, disabling.reason, delivery.appID, delivery.endpointID])
            }
            return true
        }
    }

    public func webhookDeliveries(appID: String, endpointID: String, before: Int64?, limit: Int) async throws -> [WebhookDelivery] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM webhook_deliveries WHERE app_id = ? AND endpoint_id = ? AND created_at < ?
                    ORDER BY created_at DESC, id DESC LIMIT ?
                    """,
                arguments: [appID, endpointID, before ?? Int64.max, limit]
            ).map(Self.webhookDelivery)
        }
    }

    public func webhookDelivery(appID: String, endpointID: String, id: String) async throws -> WebhookDelivery? {
        try await pool.read { db in try webhookDelivery(db, appID: appID, endpointID: endpointID, id: id) }
    }

    public func pruneWebhooks(before: Int64) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM webhook_deliveries WHERE state != 'pending' AND finished_at < ?", arguments: [before])
            var deleted = db.changesCount
            // An app's events that every endpoint of it has had (or that none is left to have).
            try db.execute(
                sql: """
                    DELETE FROM webhook_events AS v WHERE created_at < ?
                        AND NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.app_id = v.app_id
                            AND (e.cursor_sequence < v.sequence OR (e.cursor_sequence = v.sequence AND e.cursor_step < v.step)))
                        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.app_id = v.app_id AND d.state != 'delivered'
                            AND (d.first_sequence < v.sequence OR (d.first_sequence = v.sequence AND d.first_step <= v.step)))
                    """,
                arguments: [before])
            deleted += db.changesCount
            return deleted
        }
    }

    // MARK: Rows

    /// Loads what every app's endpoints want (when the store opens).
    func loadWebhookInterest(_ db: Database) throws {
        for appID in try String.fetchAll(db, sql: "SELECT DISTINCT app_id FROM webhook_endpoints") {
            try reloadWebhookInterest(db, appID: appID)
        }
    }

    /// Reads the app's endpoints' filters into the registry, as of this transaction.
    private func reloadWebhookInterest(_ db: Database, appID: String) throws {
        let filters = try Row.fetchAll(db, sql: "SELECT events, buckets FROM webhook_endpoints WHERE app_id = ?", arguments: [appID])
            .map { row in try WebhookStoredForm.filter(types: row["events"], buckets: row["buckets"]) }
        webhookInterest.replace(appID: appID, generation: (webhookInterest.generation(of: appID) ?? 0) + 1, filters: filters)
    }

    private func sealedSecrets(_ secrets: WebhookSecrets, appID: String, endpointID: String) -> [(any DatabaseValueConvertible)?] {
        [
            serverKey.sealWebhookSecret(secrets.current, appID: appID, endpointID: endpointID),
            secrets.previous.map { serverKey.sealWebhookSecret($0, appID: appID, endpointID: endpointID) }, secrets.previousUntil,
        ]
    }

    private func webhookEndpoint(_ db: Database, appID: String, id: String) throws -> WebhookEndpoint? {
        try Row.fetchOne(db, sql: "SELECT * FROM webhook_endpoints WHERE app_id = ? AND id = ?", arguments: [appID, id]).map(webhookEndpoint)
    }

    private func webhookEndpoint(_ row: Row) throws -> WebhookEndpoint {
        let appID: String = row["app_id"]
        let id: String = row["id"]
        let previous: String? = row["previous_secret"]
        let disabledAt: Int64? = row["disabled_at"]
        return WebhookEndpoint(
            appID: appID, id: id, url: row["url"], filter: try WebhookStoredForm.filter(types: row["events"], buckets: row["buckets"]),
            description: row["description"],
            secrets: WebhookSecrets(
                current: try serverKey.openWebhookSecret(row["secret"], appID: appID, endpointID: id),
                previous: try previous.map { try serverKey.openWebhookSecret($0, appID: appID, endpointID: id) },
                previousUntil: row["previous_secret_until"]),
            createdAt: row["created_at"], disabled: disabledAt.map { WebhookEndpoint.Disabled(at: $0, reason: row["disabled_reason"] ?? "") },
            cursor: WebhookPosition(sequence: row["cursor_sequence"], step: row["cursor_step"]))
    }

    private func webhookDelivery(_ db: Database, appID: String, endpointID: String, id: String) throws -> WebhookDelivery? {
        try Row.fetchOne(
            db, sql: "SELECT * FROM webhook_deliveries WHERE app_id = ? AND endpoint_id = ? AND id = ?", arguments: [appID, endpointID, id]
        ).map(Self.webhookDelivery)
    }

    private static func webhookDelivery(_ row: Row) throws -> WebhookDelivery {
        let state: String = row["state"]
        guard let parsed = WebhookDelivery.State(rawValue: state) else { throw WebhookStoreError.unreadable("delivery state \(state)") }
        let attemptAt: Int64? = row["last_attempt_at"]
        return WebhookDelivery(
            appID: row["app_id"], endpointID: row["endpoint_id"], id: row["id"],
            first: WebhookPosition(sequence: row["first_sequence"], step: row["first_step"]),
            last: WebhookPosition(sequence: row["last_sequence"], step: row["last_step"]), eventCount: row["event_count"],
            createdAt: row["created_at"], state: parsed, attempts: row["attempts"], nextAttemptAt: row["next_attempt_at"],
            firstAttemptAt: row["first_attempt_at"],
            lastAttempt: attemptAt.map { at in
                WebhookDelivery.Attempt(
                    at: at, status: row["last_status"], error: row["last_error"], response: row["last_response"] ?? "",
                    durationNanoseconds: row["last_duration"] ?? 0)
            },
            finishedAt: row["finished_at"])
    }

    private static func webhookEvent(_ row: Row) throws -> WebhookEventRecord {
        let type: String = row["type"]
        guard let parsed = WebhookEventType(rawValue: type) else { throw WebhookStoreError.unreadable("event type \(type)") }
        return WebhookEventRecord(
            appID: row["app_id"], position: WebhookPosition(sequence: row["sequence"], step: row["step"]), type: parsed,
            bucket: row["bucket"], createdAt: row["created_at"], payload: row["payload"])
    }

    private static func holdsLease(_ db: Database, appID: String, endpointID: String, node: String) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE app_id = ? AND id = ? AND lease_node = ?)",
            arguments: [appID, endpointID, node]) ?? false
    }

    /// Moves the cursor to `position` unless it is there or past it already.
    private static func advanceCursor(_ db: Database, appID: String, endpointID: String, to position: WebhookPosition) throws {
        try db.execute(
            sql: """
                UPDATE webhook_endpoints SET cursor_sequence = ?1, cursor_step = ?2
                WHERE app_id = ?3 AND id = ?4 AND (cursor_sequence < ?1 OR (cursor_sequence = ?1 AND cursor_step < ?2))
                """,
            arguments: [position.sequence, position.step, appID, endpointID])
    }
}
