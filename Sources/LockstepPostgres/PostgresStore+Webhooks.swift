public import LockstepServer
import Logging
import PostgresNIO

/// Webhook endpoints, their events and deliveries (see ``WebhookStore``), shared by every node.
///
/// Every change to an app's endpoints moves the app's `webhook_generation` on under the app's
/// row lock, which every commit to the app takes too; a commit reads the generation with that
/// lock and, when it is not the one this node knows, reads the app's endpoints again before it
/// decides which events to record. So an endpoint is owed every change committed after it, on
/// any node. Other events (``recordWebhookEvents(appID:_:)``) follow another node's changes to
/// endpoints within the dispatcher's poll (``refreshWebhookInterest()``).
extension PostgresStore {
    // MARK: Endpoints

    public func insertWebhookEndpoint(_ endpoint: WebhookEndpoint) async throws -> WebhookEndpoint {
        var inserted = endpoint
        let (generation, filters) = try await transaction { connection in
            guard let row = try await Self.rows(connection, logger, """
                UPDATE apps SET webhook_generation = webhook_generation + 1 WHERE id = \(endpoint.appID)
                RETURNING last_sequence, webhook_generation
                """).first
            else { throw WebhookStoreError.noSuchApp(endpoint.appID) }
            let (sequence, generation) = try row.decode((Int64, Int64).self)
            let step = try await Self.rows(connection, logger, """
                SELECT MAX(step) FROM webhook_events WHERE app_id = \(endpoint.appID) AND sequence = \(sequence)
                """).first?.decode(Int64?.self)
            inserted.cursor = WebhookPosition(sequence: sequence, step: step ?? -1)
            let secrets = sealedSecrets(inserted.secrets, appID: inserted.appID, endpointID: inserted.id)
            try await Self.rows(connection, logger, """
                INSERT INTO webhook_endpoints (app_id, id, url, events, buckets, description, secret, previous_secret,
                    previous_secret_until, created_at, disabled_at, disabled_reason, cursor_sequence, cursor_step)
                VALUES (\(inserted.appID), \(inserted.id), \(inserted.url), \(WebhookStoredForm.types(inserted.filter)),
                    \(WebhookStoredForm.buckets(inserted.filter)), \(inserted.description), \(secrets.current), \(secrets.previous),
                    \(inserted.secrets.previousUntil), \(inserted.createdAt), \(inserted.disabled?.at), \(inserted.disabled?.reason),
                    \(inserted.cursor.sequence), \(inserted.cursor.step))
                """)
            return .commit((generation, try await Self.filters(appID: endpoint.appID, connection, logger)))
        }
        webhookInterest.replace(appID: endpoint.appID, generation: generation, filters: filters)
        return inserted
    }

    public func webhookEndpoints(appID: String) async throws -> [WebhookEndpoint] {
        try await rows("""
            SELECT \(unescaped: Self.endpointColumns) FROM webhook_endpoints WHERE app_id = \(appID) ORDER BY created_at, id COLLATE "C"
            """).map(webhookEndpoint)
    }

    public func webhookEndpoint(appID: String, id: String) async throws -> WebhookEndpoint? {
        try await rows("SELECT \(unescaped: Self.endpointColumns) FROM webhook_endpoints WHERE app_id = \(appID) AND id = \(id)")
            .first.map(webhookEndpoint)
    }

    public func deleteWebhookEndpoint(appID: String, id: String) async throws -> Bool {
        let result: (generation: Int64, filters: [WebhookFilter])? = try await transaction { connection in
            guard let generation = try await Self.rows(connection, logger, """
                UPDATE apps SET webhook_generation = webhook_generation + 1 WHERE id = \(appID) RETURNING webhook_generation
                """).first?.decode(Int64.self)
            else { return .rollback(nil) }
            let deleted = try await Self.rows(connection, logger, """
                DELETE FROM webhook_endpoints WHERE app_id = \(appID) AND id = \(id) RETURNING id
                """)
            guard !deleted.isEmpty else { return .rollback(nil) }
            try await Self.rows(connection, logger, "DELETE FROM webhook_deliveries WHERE app_id = \(appID) AND endpoint_id = \(id)")
            return .commit((generation, try await Self.filters(appID: appID, connection, logger)))
        }
        guard let result else { return false }
        webhookInterest.replace(appID: appID, generation: result.generation, filters: result.filters)
        return true
    }

    public func setWebhookSecrets(appID: String, id: String, secrets: WebhookSecrets) async throws -> Bool {
        let sealed = sealedSecrets(secrets, appID: appID, endpointID: id)
        return try await !rows("""
            UPDATE webhook_endpoints SET secret = \(sealed.current), previous_secret = \(sealed.previous),
                previous_secret_until = \(secrets.previousUntil)
            WHERE app_id = \(appID) AND id = \(id) RETURNING id
            """).isEmpty
    }

    public func redeliverWebhook(appID: String, endpointID: String, delivery: String?, now: Int64) async throws -> WebhookRedelivery {
        try await transaction { connection in
            guard let row = try await Self.rows(connection, logger, """
                SELECT disabled_at FROM webhook_endpoints WHERE app_id = \(appID) AND id = \(endpointID) FOR UPDATE
                """).first
            else { return .rollback(.noSuchEndpoint) }
            var chosen = delivery
            if chosen == nil, let disabledAt = try row.decode(Int64?.self) {
                // The delivery the endpoint was disabled with: failed at the moment it was.
                chosen = try await Self.rows(connection, logger, """
                    SELECT id FROM webhook_deliveries
                    WHERE app_id = \(appID) AND endpoint_id = \(endpointID) AND state = 'failed' AND finished_at = \(disabledAt)
                    ORDER BY first_sequence, first_step LIMIT 1
                    """).first?.decode(String.self)
            }
            var resumed: WebhookDelivery?
            if let chosen {
                guard let row = try await Self.rows(connection, logger, """
                    UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = \(now), first_attempt_at = NULL,
                        finished_at = NULL
                    WHERE app_id = \(appID) AND endpoint_id = \(endpointID) AND id = \(chosen)
                    RETURNING \(unescaped: Self.deliveryColumns)
                    """).first
                else { return .rollback(.noSuchDelivery) }
                resumed = try Self.webhookDelivery(row)
            }
            try await Self.rows(connection, logger, """
                UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL WHERE app_id = \(appID) AND id = \(endpointID)
                """)
            return .commit(.resumed(resumed))
        }
    }

    public func refreshWebhookInterest() async throws {
        for row in try await rows("SELECT id, webhook_generation FROM apps") {
            let (appID, generation) = try row.decode((String, Int64).self)
            guard generation != webhookInterest.generation(of: appID) ?? 0 else { continue }
            let filters = try await rows("SELECT events, buckets FROM webhook_endpoints WHERE app_id = \(appID)").map(Self.filter)
            webhookInterest.replace(appID: appID, generation: generation, filters: filters)
        }
    }

    // MARK: Events

    /// Records the events of a group's changes (``ChangeEvents``) in its transaction, with the
    /// apps' rows locked: first reading the endpoints of any app whose generation is not the
    /// one this node knows.
    func recordChangeEvents(
        _ writes: GroupWrites, _ group: ChangeGroup, generations: [String: Int64], _ connection: PostgresConnection
    ) async throws {
        for (appID, generation) in generations where generation != webhookInterest.generation(of: appID) ?? 0 {
            webhookInterest.replace(appID: appID, generation: generation, filters: try await Self.filters(appID: appID, connection, logger))
        }
        let interest = webhookInterest.snapshot()
        guard generations.keys.contains(where: { interest[$0] != nil }) else { return }
        let spaces = ChangeEvents.spacesNamed(by: writes, interest: interest)
        var names: [SpaceKey: String] = [:]
        if !spaces.isEmpty {
            let (known, unknown) = spaceNames.lookUp(spaces)
            names = known
            if !unknown.isEmpty {
                var found: [SpaceKey: String] = [:]
                for row in try await Self.rows(connection, logger, """
                    SELECT s.app_id, s.id, s.name FROM spaces s
                    JOIN unnest(\(unknown.map(\.appID))::text[], \(unknown.map(\.spaceID))::text[]) AS x(app_id, id)
                        ON s.app_id = x.app_id AND s.id = x.id
                    """)
                {
                    let (appID, id, name) = try row.decode((String, String, String).self)
                    found[SpaceKey(appID: appID, spaceID: id)] = name
                }
                spaceNames.remember(found)
                names.merge(found) { _, new in new }
            }
        }
        let records = ChangeEvents.records(writes, group, interest: interest, spaceNames: names)
        guard !records.isEmpty else { return }
        try await Self.insertEvents(records, connection, logger)
    }

    private static func insertEvents(_ records: [WebhookEventRecord], _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await rows(connection, logger, """
            INSERT INTO webhook_events (app_id, sequence, step, type, bucket, created_at, payload)
            SELECT app_id, sequence, step, type, NULLIF(bucket, ''), created_at, payload FROM unnest(
                \(records.map(\.appID))::text[], \(records.map(\.position.sequence))::bigint[], \(records.map(\.position.step))::bigint[],
                \(records.map(\.type.rawValue))::text[], \(records.map { $0.bucket ?? "" })::text[], \(records.map(\.createdAt))::bigint[],
                \(records.map(\.payload))::text[]) AS x(app_id, sequence, step, type, bucket, created_at, payload)
            """)
    }

    public func recordWebhookEvents(appID: String, _ events: [NewWebhookEvent]) async throws {
        guard events.contains(where: { webhookInterest.wants(appID: appID, $0.type, bucket: $0.bucket) }) else { return }
        try await transaction { connection in
            // The app's row lock orders the events with the app's commits (``WebhookPosition``).
            guard let row = try await Self.rows(connection, logger, """
                UPDATE apps SET last_sequence = last_sequence WHERE id = \(appID) RETURNING last_sequence, webhook_generation
                """).first
            else { throw WebhookStoreError.noSuchApp(appID) }
            let (sequence, generation) = try row.decode((Int64, Int64).self)
            if generation != webhookInterest.generation(of: appID) ?? 0 {
                webhookInterest.replace(appID: appID, generation: generation, filters: try await Self.filters(appID: appID, connection, logger))
            }
            let wanted = events.filter { webhookInterest.wants(appID: appID, $0.type, bucket: $0.bucket) }
            guard !wanted.isEmpty else { return .rollback(()) }
            var step = try await Self.rows(connection, logger, """
                SELECT MAX(step) FROM webhook_events WHERE app_id = \(appID) AND sequence = \(sequence)
                """).first?.decode(Int64?.self) ?? -1
            let records = wanted.map { event in
                step += 1
                return WebhookEventRecord(
                    appID: appID, position: WebhookPosition(sequence: sequence, step: step), type: event.type, bucket: event.bucket,
                    createdAt: event.createdAt, payload: event.payload)
            }
            try await Self.insertEvents(records, connection, logger)
            return .commit(())
        }
    }

    public func spaceName(appID: String, spaceID: String) async throws -> String? {
        let key = SpaceKey(appID: appID, spaceID: spaceID)
        if let known = spaceNames.lookUp([key]).known[key] { return known }
        let name = try await rows("SELECT name FROM spaces WHERE app_id = \(appID) AND id = \(spaceID)").first?.decode(String.self)
        if let name { spaceNames.remember([key: name]) }
        return name
    }

    public func webhookEvents(appID: String, after position: WebhookPosition, limit: Int) async throws -> [WebhookEventRecord] {
        try await rows("""
            SELECT \(unescaped: Self.eventColumns) FROM webhook_events
            WHERE app_id = \(appID) AND (sequence, step) > (\(position.sequence), \(position.step))
            ORDER BY sequence, step LIMIT \(Int64(limit))
            """).map(Self.webhookEvent)
    }

    public func webhookEvents(appID: String, from first: WebhookPosition, through last: WebhookPosition) async throws
        -> [WebhookEventRecord]
    {
        try await rows("""
            SELECT \(unescaped: Self.eventColumns) FROM webhook_events
            WHERE app_id = \(appID) AND (sequence, step) >= (\(first.sequence), \(first.step))
                AND (sequence, step) <= (\(last.sequence), \(last.step))
            ORDER BY sequence, step
            """).map(Self.webhookEvent)
    }

    public func webhookBacklog(_ endpoint: WebhookEndpoint) async throws -> (events: Int, oldest: Int64?) {
        // Bucket patterns as LIKE patterns: `*` is `%`, and the `_` and `%` of names mean themselves.
        let patterns = endpoint.filter.buckets.map { pattern in
            pattern.text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_").replacingOccurrences(of: "*", with: "%")
        }
        let row = try await rows("""
            SELECT COUNT(*), MIN(created_at) FROM webhook_events
            WHERE app_id = \(endpoint.appID) AND (sequence, step) > (\(endpoint.cursor.sequence), \(endpoint.cursor.step))
                AND type = ANY(\(endpoint.filter.typeNames)::text[])
                AND (bucket IS NULL OR cardinality(\(patterns)::text[]) = 0 OR bucket LIKE ANY(\(patterns)::text[]))
            """).first
        let (count, oldest) = try row?.decode((Int64, Int64?).self) ?? (Int64(0), nil)
        return (Int(count), oldest)
    }

    // MARK: Deliveries

    public func webhookEndpointsWithWork(now: Int64, limit: Int) async throws -> [WebhookEndpoint] {
        try await rows("""
            SELECT \(unescaped: Self.endpointColumns(of: "e")) FROM webhook_endpoints e
            WHERE e.disabled_at IS NULL AND (e.lease_until IS NULL OR e.lease_until <= \(now))
                AND (EXISTS (SELECT 1 FROM webhook_deliveries d
                             WHERE d.app_id = e.app_id AND d.endpoint_id = e.id AND d.state = 'pending' AND d.next_attempt_at <= \(now))
                     OR EXISTS (SELECT 1 FROM webhook_events v
                                WHERE v.app_id = e.app_id AND (v.sequence, v.step) > (e.cursor_sequence, e.cursor_step)))
            LIMIT \(Int64(limit))
            """).map(webhookEndpoint)
    }

    public func leaseWebhookEndpoint(appID: String, id: String, node: String, until: Int64, now: Int64) async throws -> WebhookEndpoint? {
        try await rows("""
            UPDATE webhook_endpoints SET lease_node = \(node), lease_until = \(until)
            WHERE app_id = \(appID) AND id = \(id) AND disabled_at IS NULL
                AND (lease_node = \(node) OR lease_until IS NULL OR lease_until <= \(now))
            RETURNING \(unescaped: Self.endpointColumns)
            """).first.map(webhookEndpoint)
    }

    public func releaseWebhookEndpoint(appID: String, id: String, node: String) async throws {
        try await execute("""
            UPDATE webhook_endpoints SET lease_node = NULL, lease_until = NULL WHERE app_id = \(appID) AND id = \(id) AND lease_node = \(node)
            """)
    }

    /// Nodes share the database: a lease another node left ends with its time.
    public func releaseStaleWebhookLeases() async throws {}

    public func pendingWebhookDelivery(appID: String, endpointID: String) async throws -> WebhookDelivery? {
        try await rows("""
            SELECT \(unescaped: Self.deliveryColumns) FROM webhook_deliveries
            WHERE app_id = \(appID) AND endpoint_id = \(endpointID) AND state = 'pending'
            ORDER BY first_sequence, first_step LIMIT 1
            """).first.map(Self.webhookDelivery)
    }

    public func insertWebhookDelivery(_ delivery: WebhookDelivery, skippedThrough: WebhookPosition?, node: String) async throws -> Bool {
        try await transaction { connection in
            guard try await Self.lockLease(appID: delivery.appID, endpointID: delivery.endpointID, node: node, connection, logger) else {
                return .rollback(false)
            }
            if let skippedThrough {
                try await Self.advanceCursor(appID: delivery.appID, endpointID: delivery.endpointID, to: skippedThrough, connection, logger)
            }
            try await Self.rows(connection, logger, """
                INSERT INTO webhook_deliveries (app_id, endpoint_id, id, first_sequence, first_step, last_sequence, last_step,
                    event_count, created_at, state, attempts, next_attempt_at)
                VALUES (\(delivery.appID), \(delivery.endpointID), \(delivery.id), \(delivery.first.sequence), \(delivery.first.step),
                    \(delivery.last.sequence), \(delivery.last.step), \(Int64(delivery.eventCount)), \(delivery.createdAt),
                    \(delivery.state.rawValue), \(Int64(delivery.attempts)), \(delivery.nextAttemptAt))
                """)
            return .commit(true)
        }
    }

    public func skipWebhookEvents(appID: String, endpointID: String, through position: WebhookPosition, node: String) async throws -> Bool {
        try await transaction { connection in
            guard try await Self.lockLease(appID: appID, endpointID: endpointID, node: node, connection, logger) else { return .rollback(false) }
            try await Self.advanceCursor(appID: appID, endpointID: endpointID, to: position, connection, logger)
            return .commit(true)
        }
    }

    public func recordWebhookAttempt(_ delivery: WebhookDelivery, disabling: WebhookEndpoint.Disabled?, node: String) async throws -> Bool {
        try await transaction { connection in
            guard try await Self.lockLease(appID: delivery.appID, endpointID: delivery.endpointID, node: node, connection, logger) else {
                return .rollback(false)
            }
            let attempt = delivery.lastAttempt
            try await Self.rows(connection, logger, """
                UPDATE webhook_deliveries SET state = \(delivery.state.rawValue), attempts = \(Int64(delivery.attempts)),
                    next_attempt_at = \(delivery.nextAttemptAt), first_attempt_at = \(delivery.firstAttemptAt), last_attempt_at = \(attempt?.at),
                    last_status = \(attempt?.status.map(Int64.init)), last_error = \(attempt?.error), last_response = \(attempt?.response),
                    last_duration = \(attempt?.durationNanoseconds), finished_at = \(delivery.finishedAt)
                WHERE app_id = \(delivery.appID) AND endpoint_id = \(delivery.endpointID) AND id = \(delivery.id)
                """)
            if delivery.state == .delivered {
                try await Self.advanceCursor(appID: delivery.appID, endpointID: delivery.endpointID, to: delivery.last, connection, logger)
            }
            if let disabling {
                try await Self.rows(connection, logger, """
                    UPDATE webhook_endpoints SET disabled_at = \(disabling.at), disabled_reason = \(disabling.reason), lease_node = NULL,
                        lease_until = NULL
                    WHERE app_id = \(delivery.appID) AND id = \(delivery.endpointID)
                    """)
            }
            return .commit(true)
        }
    }

    public func webhookDeliveries(appID: String, endpointID: String, before: Int64?, limit: Int) async throws -> [WebhookDelivery] {
        try await rows("""
            SELECT \(unescaped: Self.deliveryColumns) FROM webhook_deliveries
            WHERE app_id = \(appID) AND endpoint_id = \(endpointID) AND created_at < \(before ?? Int64.max)
            ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT \(Int64(limit))
            """).map(Self.webhookDelivery)
    }

    public func webhookDelivery(appID: String, endpointID: String, id: String) async throws -> WebhookDelivery? {
        try await rows("""
            SELECT \(unescaped: Self.deliveryColumns) FROM webhook_deliveries
            WHERE app_id = \(appID) AND endpoint_id = \(endpointID) AND id = \(id)
            """).first.map(Self.webhookDelivery)
    }

    public func pruneWebhooks(before: Int64) async throws -> Int {
        let deliveries = try await rows("""
            DELETE FROM webhook_deliveries WHERE state <> 'pending' AND finished_at < \(before) RETURNING 1
            """).count
        // An app's events that every endpoint of it has had (or that none is left to have).
        let events = try await rows("""
            DELETE FROM webhook_events v WHERE created_at < \(before)
                AND NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.app_id = v.app_id
                    AND (e.cursor_sequence, e.cursor_step) < (v.sequence, v.step))
                AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.app_id = v.app_id AND d.state <> 'delivered'
                    AND (d.first_sequence, d.first_step) <= (v.sequence, v.step))
            RETURNING 1
            """).count
        return deliveries + events
    }

    // MARK: Rows

    private static func filters(appID: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> [WebhookFilter] {
        try await rows(connection, logger, "SELECT events, buckets FROM webhook_endpoints WHERE app_id = \(appID)").map(filter)
    }

    private static func filter(_ row: PostgresRow) throws -> WebhookFilter {
        let (types, buckets) = try row.decode((String, String).self)
        return try WebhookStoredForm.filter(types: types, buckets: buckets)
    }

    /// Locks the endpoint's row if the node holds its lease; `false` when it does not.
    private static func lockLease(
        appID: String, endpointID: String, node: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Bool {
        try await !rows(connection, logger, """
            SELECT 1 FROM webhook_endpoints WHERE app_id = \(appID) AND id = \(endpointID) AND lease_node = \(node) FOR UPDATE
            """).isEmpty
    }

    /// Moves the cursor to `position` unless it is there or past it already.
    private static func advanceCursor(
        appID: String, endpointID: String, to position: WebhookPosition, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        try await rows(connection, logger, """
            UPDATE webhook_endpoints SET cursor_sequence = \(position.sequence), cursor_step = \(position.step)
            WHERE app_id = \(appID) AND id = \(endpointID) AND (cursor_sequence, cursor_step) < (\(position.sequence), \(position.step))
            """)
    }

    private func sealedSecrets(_ secrets: WebhookSecrets, appID: String, endpointID: String) -> (current: String, previous: String?) {
        (
            serverKey.sealWebhookSecret(secrets.current, appID: appID, endpointID: endpointID),
            secrets.previous.map { serverKey.sealWebhookSecret($0, appID: appID, endpointID: endpointID) }
        )
    }

    static let endpointColumns = """
        app_id, id, url, events, buckets, description, secret, previous_secret, previous_secret_until, created_at, disabled_at,
        disabled_reason, cursor_sequence, cursor_step
        """

    static func endpointColumns(of table: String) -> String {
        endpointColumns.split(separator: ",").map { "\(table).\($0.trimmingCharacters(in: .whitespacesAndNewlines))" }.joined(separator: ", ")
    }

    private func webhookEndpoint(_ row: PostgresRow) throws -> WebhookEndpoint {
        let cells = row.makeRandomAccess()
        let appID = try cells[0].decode(String.self)
        let id = try cells[1].decode(String.self)
        let disabledAt = try cells[10].decode(Int64?.self)
        return WebhookEndpoint(
            appID: appID, id: id, url: try cells[2].decode(String.self),
            filter: try WebhookStoredForm.filter(types: try cells[3].decode(String.self), buckets: try cells[4].decode(String.self)),
            description: try cells[5].decode(String.self),
            secrets: WebhookSecrets(
                current: try serverKey.openWebhookSecret(try cells[6].decode(String.self), appID: appID, endpointID: id),
                previous: try cells[7].decode(String?.self).map { try serverKey.openWebhookSecret($0, appID: appID, endpointID: id) },
                previousUntil: try cells[8].decode(Int64?.self)),
            createdAt: try cells[9].decode(Int64.self),
            disabled: try disabledAt.map { WebhookEndpoint.Disabled(at: $0, reason: try cells[11].decode(String?.self) ?? "") },
            cursor: WebhookPosition(sequence: try cells[12].decode(Int64.self), step: try cells[13].decode(Int64.self)))
    }

    static let deliveryColumns = """
        app_id, endpoint_id, id, first_sequence, first_step, last_sequence, last_step, event_count, created_at, state, attempts,
        next_attempt_at, first_attempt_at, last_attempt_at, last_status, last_error, last_response, last_duration, finished_at
        """

    private static func webhookDelivery(_ row: PostgresRow) throws -> WebhookDelivery {
        let cells = row.makeRandomAccess()
        let state = try cells[9].decode(String.self)
        guard let parsed = WebhookDelivery.State(rawValue: state) else { throw WebhookStoreError.unreadable("delivery state \(state)") }
        let attemptAt = try cells[13].decode(Int64?.self)
        return WebhookDelivery(
            appID: try cells[0].decode(String.self), endpointID: try cells[1].decode(String.self), id: try cells[2].decode(String.self),
            first: WebhookPosition(sequence: try cells[3].decode(Int64.self), step: try cells[4].decode(Int64.self)),
            last: WebhookPosition(sequence: try cells[5].decode(Int64.self), step: try cells[6].decode(Int64.self)),
            eventCount: Int(try cells[7].decode(Int64.self)), createdAt: try cells[8].decode(Int64.self), state: parsed,
            attempts: Int(try cells[10].decode(Int64.self)), nextAttemptAt: try cells[11].decode(Int64.self),
            firstAttemptAt: try cells[12].decode(Int64?.self),
            lastAttempt: try attemptAt.map { at in
                WebhookDelivery.Attempt(
                    at: at, status: try cells[14].decode(Int64?.self).map(Int.init), error: try cells[15].decode(String?.self),
                    response: try cells[16].decode(String?.self) ?? "", durationNanoseconds: try cells[17].decode(Int64?.self) ?? 0)
            },
            finishedAt: try cells[18].decode(Int64?.self))
    }

    static let eventColumns = "app_id, sequence, step, type, bucket, created_at, payload"

    private static func webhookEvent(_ row: PostgresRow) throws -> WebhookEventRecord {
        let (appID, sequence, step, type, bucket, createdAt, payload) = try row.decode((String, Int64, Int64, String, String?, Int64, String).self)
        guard let parsed = WebhookEventType(rawValue: type) else { throw WebhookStoreError.unreadable("event type \(type)") }
        return WebhookEventRecord(
            appID: appID, position: WebhookPosition(sequence: sequence, step: step), type: parsed, bucket: bucket, createdAt: createdAt,
            payload: payload)
    }
}
