/// An app's webhook endpoint, as the store keeps it.
public struct WebhookEndpoint: Sendable, Equatable {
    public var appID: String
    /// `ep_` and 24 hex digits.
    public var id: String
    public var url: String
    public var filter: WebhookFilter
    /// Free text for people (what the endpoint is for).
    public var description: String
    public var secrets: WebhookSecrets
    /// Nanoseconds since the Unix epoch, as every time the store keeps.
    public var createdAt: Int64
    /// Set when deliveries stopped: after failing for the longest retry period, or at a 410.
    public var disabled: Disabled?
    /// The last event the endpoint has had (or did not want): deliveries go on after it.
    public var cursor: WebhookPosition

    public struct Disabled: Sendable, Equatable {
        public var at: Int64
        public var reason: String

        public init(at: Int64, reason: String) {
            self.at = at
            self.reason = reason
        }
    }

    public init(
        appID: String, id: String, url: String, filter: WebhookFilter, description: String, secrets: WebhookSecrets, createdAt: Int64,
        disabled: Disabled? = nil, cursor: WebhookPosition = .start
    ) {
        self.appID = appID
        self.id = id
        self.url = url
        self.filter = filter
        self.description = description
        self.secrets = secrets
        self.createdAt = createdAt
        self.disabled = disabled
        self.cursor = cursor
    }

    /// A fresh endpoint id.
    static func newID() -> String { "ep_" + Secrets.randomHex(byteCount: 12) }
}

/// One request's worth of an endpoint's events, sent until a 2xx answers it: the same
/// `webhook-id` (``id``) on every attempt, the same events.
public struct WebhookDelivery: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Waiting for its next attempt (or its first).
        case pending
        /// Answered with a 2xx.
        case delivered
        /// Given up on: its endpoint was disabled (after the longest retry period, or a 410).
        case failed
    }

    public var appID: String
    public var endpointID: String
    /// `msg_` and 32 hex digits: the `webhook-id` of each of its requests.
    public var id: String
    /// Its first and last events; the events between that the endpoint wants are its body.
    public var first: WebhookPosition
    public var last: WebhookPosition
    public var eventCount: Int
    public var createdAt: Int64
    public var state: State
    public var attempts: Int
    /// When the next attempt may be made (a pending delivery).
    public var nextAttemptAt: Int64
    /// The first attempt's time: retries stop ``WebhookLimits/retryPeriodSeconds`` after it.
    public var firstAttemptAt: Int64?
    public var lastAttempt: Attempt?
    public var finishedAt: Int64?

    /// What the last attempt got.
    public struct Attempt: Sendable, Equatable {
        public var at: Int64
        /// The response's status; `nil` when there was no response (refused, timed out…).
        public var status: Int?
        /// Why it failed, when it did: the status, or what went wrong before one.
        public var error: String?
        /// The response body's first bytes (``WebhookLimits/responseBytesKept``), as text.
        public var response: String
        public var durationNanoseconds: Int64

        public init(at: Int64, status: Int?, error: String?, response: String, durationNanoseconds: Int64) {
            self.at = at
            self.status = status
            self.error = error
            self.response = response
            self.durationNanoseconds = durationNanoseconds
        }
    }

    public init(
        appID: String, endpointID: String, id: String, first: WebhookPosition, last: WebhookPosition, eventCount: Int, createdAt: Int64,
        state: State = .pending, attempts: Int = 0, nextAttemptAt: Int64, firstAttemptAt: Int64? = nil, lastAttempt: Attempt? = nil,
        finishedAt: Int64? = nil
    ) {
        self.appID = appID
        self.endpointID = endpointID
        self.id = id
        self.first = first
        self.last = last
        self.eventCount = eventCount
        self.createdAt = createdAt
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.firstAttemptAt = firstAttemptAt
        self.lastAttempt = lastAttempt
        self.finishedAt = finishedAt
    }

    /// A fresh delivery id.
    static func newID() -> String { "msg_" + Secrets.randomHex(byteCount: 16) }
}
