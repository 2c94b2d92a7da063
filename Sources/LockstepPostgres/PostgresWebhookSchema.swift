import PostgresNIO

/// The webhook tables (see SQLiteWebhookSchema, column for column), and each app's
/// `webhook_generation`: moved on by every change to the app's endpoints, under the app's row
/// lock, and read by every commit with that lock held, so a node learns there of endpoints
/// another node changed before it decides which events a commit records (``WebhookInterest``).
enum PostgresWebhookSchema {
    static let migration: [PostgresQuery] = [
        "ALTER TABLE apps ADD COLUMN webhook_generation BIGINT NOT NULL DEFAULT 0",
        """
        CREATE TABLE webhook_endpoints (
            app_id TEXT NOT NULL,
            id TEXT NOT NULL,
            url TEXT NOT NULL,
            events TEXT NOT NULL,
            buckets TEXT NOT NULL,
            description TEXT NOT NULL,
            secret TEXT NOT NULL,
            previous_secret TEXT,
            previous_secret_until BIGINT,
            created_at BIGINT NOT NULL,
            disabled_at BIGINT,
            disabled_reason TEXT,
            cursor_sequence BIGINT NOT NULL,
            cursor_step BIGINT NOT NULL,
            lease_node TEXT,
            lease_until BIGINT,
            PRIMARY KEY (app_id, id)
        )
        """,
        """
        CREATE TABLE webhook_events (
            app_id TEXT NOT NULL,
            sequence BIGINT NOT NULL,
            step BIGINT NOT NULL,
            type TEXT NOT NULL,
            bucket TEXT,
            created_at BIGINT NOT NULL,
            payload TEXT NOT NULL,
            PRIMARY KEY (app_id, sequence, step)
        )
        """,
        """
        CREATE TABLE webhook_deliveries (
            app_id TEXT NOT NULL,
            endpoint_id TEXT NOT NULL,
            id TEXT NOT NULL,
            first_sequence BIGINT NOT NULL,
            first_step BIGINT NOT NULL,
            last_sequence BIGINT NOT NULL,
            last_step BIGINT NOT NULL,
            event_count BIGINT NOT NULL,
            created_at BIGINT NOT NULL,
            state TEXT NOT NULL,
            attempts BIGINT NOT NULL,
            next_attempt_at BIGINT NOT NULL,
            first_attempt_at BIGINT,
            last_attempt_at BIGINT,
            last_status BIGINT,
            last_error TEXT,
            last_response TEXT,
            last_duration BIGINT,
            finished_at BIGINT,
            PRIMARY KEY (app_id, endpoint_id, id)
        )
        """,
        "CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries (app_id, endpoint_id, created_at)",
        """
        CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (app_id, endpoint_id, first_sequence, first_step)
            WHERE state = 'pending'
        """,
    ]
}
