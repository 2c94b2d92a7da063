import GRDB

/// The webhook tables of the embedded store (see ``WebhookStore``).
enum SQLiteWebhookSchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE webhook_endpoints (
                app_id TEXT NOT NULL,
                id TEXT NOT NULL,
                url TEXT NOT NULL,
                events TEXT NOT NULL,
                buckets TEXT NOT NULL,
                description TEXT NOT NULL,
                secret TEXT NOT NULL,
                previous_secret TEXT,
                previous_secret_until INTEGER,
                created_at INTEGER NOT NULL,
                disabled_at INTEGER,
                disabled_reason TEXT,
                cursor_sequence INTEGER NOT NULL,
                cursor_step INTEGER NOT NULL,
                lease_node TEXT,
                lease_until INTEGER,
                PRIMARY KEY (app_id, id)
            ) WITHOUT ROWID;
            -- Appended in each app's order: a change's events take its place in the app's
            -- commit order (WebhookPosition).
            CREATE TABLE webhook_events (
                app_id TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                step INTEGER NOT NULL,
                type TEXT NOT NULL,
                bucket TEXT,
                created_at INTEGER NOT NULL,
                payload TEXT NOT NULL,
                PRIMARY KEY (app_id, sequence, step)
            ) WITHOUT ROWID;
            CREATE TABLE webhook_deliveries (
                app_id TEXT NOT NULL,
                endpoint_id TEXT NOT NULL,
                id TEXT NOT NULL,
                first_sequence INTEGER NOT NULL,
                first_step INTEGER NOT NULL,
                last_sequence INTEGER NOT NULL,
                last_step INTEGER NOT NULL,
                event_count INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                state TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                next_attempt_at INTEGER NOT NULL,
                first_attempt_at INTEGER,
                last_attempt_at INTEGER,
                last_status INTEGER,
                last_error TEXT,
                last_response TEXT,
                last_duration INTEGER,
                finished_at INTEGER,
                PRIMARY KEY (app_id, endpoint_id, id)
            ) WITHOUT ROWID;
            CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries (app_id, endpoint_id, created_at);
            CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (app_id, endpoint_id, first_sequence, first_step)
                WHERE state = 'pending';
            """)
    }
}
