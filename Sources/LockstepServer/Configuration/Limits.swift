/// Every limit the server enforces, by name, with its default. Each is configurable from the
/// command line and the environment (see `lockstep serve --help`).
public struct Limits: Sendable, Equatable {
    /// How webhooks are delivered (``WebhookLimits``).
    public var webhooks = WebhookLimits()
    /// The largest object, as compact JSON, that a change may leave behind.
    public var maximumObjectBytes = 2 * 1024 * 1024
    /// The largest HTTP request body.
    public var maximumRequestBytes = 8 * 1024 * 1024
    /// The largest message a streaming client may send. A larger one is answered with error 413
    /// (for a change, naming its `ccid`, so the client can drop it) and the connection stays open.
    public var maximumMessageBytes = 4 * 1024 * 1024
    /// The largest streaming message (or single WebSocket frame) the server reads at all. Past
    /// it the server stops reading and closes the connection with status 1009 (message too big),
    /// so one connection never makes the server buffer more than this.
    public var maximumFrameBytes = 8 * 1024 * 1024
    /// How many channels (buckets) one streaming connection may open.
    public var maximumChannelsPerConnection = 100
    /// How long every version of an object is kept, so that a change made offline against it
    /// still rebases (and `e:` still answers). The change feed is kept as long, so a client
    /// away for less catches up with its `cv` instead of indexing again. 30 days.
    public var historyRetentionSeconds = 30.0 * 24 * 3600
    /// How many of each object's latest versions are kept whatever their age.
    public var retainedVersions = 60
    /// The most versions of one object kept, however young: past it the oldest go first.
    public var maximumVersionsPerObject = 10_000
    /// How often the history pruner runs (see ``HistoryPruner``); 0 turns it off.
    public var historyPruneIntervalSeconds = 600.0
    /// Every this many versions the store keeps an object's whole data (a snapshot); the
    /// versions between are rebuilt from the snapshot before them and the changes since.
    public var snapshotInterval = 32
    /// The most changes one restore of a bucket to a moment may make (one group, committed
    /// together whatever ``maximumChangesPerCommit`` says); a larger restore is refused (413).
    public var maximumRestoreChanges = 100_000
    /// How many removed members of one object keep the stamp of their removal (the latest
    /// removals first). A change whose base version is no longer kept is merged by the member
    /// stamps (merge rule 5): without the removal's stamp, a set made offline before the removal
    /// would bring the member back. Past it the oldest removals are forgotten, so an object whose
    /// member names keep changing does not grow without end. 0 keeps none.
    public var removedMemberStampsPerObject = 1000
    /// The most changes one group commit (one transaction, one flush to disk) carries; more
    /// queued changes wait for the next.
    public var maximumChangesPerCommit = 1000
    /// How many of one streaming connection's changes may wait for their commit at once;
    /// past it the server reads that connection's next message only once the oldest is durable.
    public var maximumChangesInFlight = 256
    /// The default and largest page of `index` requests.
    public var defaultIndexPage = 100
    public var maximumIndexPage = 1000
    /// How long `GET /changes` waits for a change before answering with none.
    public var changesLongPollSeconds = 25.0
    /// A streaming connection that sends nothing for this long (no message, no heartbeat, no
    /// reply to the WebSocket ping the server sends once it has been quiet for a quarter of
    /// this) is closed, and so is one whose peer has not taken a single outgoing message for
    /// this long. Ten seconds, so that presence objects of a connection that vanished without a
    /// word go within ten seconds; an idle peer costs a 10-byte ping every three seconds or so.
    public var heartbeatTimeoutSeconds = 10.0
    /// Bytes queued for one streaming connection before it counts as a slow reader and is closed.
    public var outgoingBufferBytes = 8 * 1024 * 1024
    /// How long an event loop that has just written a change to many of its sockets (16 or
    /// more) waits before it writes the next such change, so that a busy socket takes the
    /// changes of that time in one write (one system call, one TCP segment, one wakeup of its
    /// reader) instead of one each. An event loop that wrote none for this long writes at once:
    /// changes at a quiet pace are never held, and a busy one's wait no longer than this. A
    /// change for a few sockets (a user's devices) is never held. 5 ms (what Kafka's producers
    /// linger); 0 writes every change as soon as it is durable.
    public var announcementLingerSeconds = 0.005
    /// Bytes of messages one streaming connection may have received and not yet handled. The
    /// socket is read ahead of the handling (so pings and pongs are answered at once, not
    /// behind a client's pipelined changes); past this the server stops reading the connection
    /// until it has caught up, and TCP slows the client down.
    public var incomingBufferBytes = 8 * 1024 * 1024
    /// Messages one streaming connection may send per second (a burst of twice as many is
    /// allowed); past it the server reads that connection's messages more slowly. 0 turns it off.
    public var messagesPerSecond = 500.0
    /// Changes (`c:`) one streaming connection may send per second (a burst of twice as many);
    /// past it the server reads them more slowly. Apart from ``messagesPerSecond``: a device
    /// coming back online sends its backlog at once. 0 turns it off.
    public var changesPerSecond = 5000.0
    /// HTTP requests one caller may make per second (bursts of twice as many). A caller is
    /// its token once the token has proved real, otherwise its address (see
    /// ``TrustedProxies``; IPv6 by /64). Release windows and keys are not counted: they are
    /// immutable, served from memory, and a release brings every player at once. 0 turns it off.
    public var httpRequestsPerSecond = 200.0
    /// `create/` and `authorize/` requests one address may make per minute, on top of the
    /// request rate (bursts of twice as many): each costs a password hash. 0 turns it off.
    public var accountRequestsPerMinute = 60.0
    /// Password attempts per username (in canonical form, whoever makes them) per minute on
    /// `authorize/` and password changes (bursts of twice as many).
    public var passwordAttemptsPerMinute = 10.0
    /// Connections one address may hold open at once (HTTP and streaming); more are closed as
    /// they arrive. Trusted proxies are not counted: each carries many callers (limit them at
    /// the proxy, e.g. nginx's `limit_conn`). 0 turns it off.
    public var maximumConnectionsPerAddress = 256
    /// How long an HTTP connection may stay open with no request under way (just opened, or
    /// kept alive after a response); past it the server closes it. Longer than clients keep
    /// idle connections pooled (AsyncHTTPClient: 60 s), so that a client never reuses one the
    /// server is closing. 0 turns it off.
    public var idleConnectionTimeoutSeconds = 75.0
    /// How long a request's header may take to arrive once its first bytes have: a header sent
    /// a few bytes at a time is closed past it. 0 turns it off.
    public var requestHeaderTimeoutSeconds = 10.0
    /// How long a request's body may take to arrive once its header has. 0 turns it off.
    public var requestBodyTimeoutSeconds = 60.0
    /// How long a streaming connection may stay open without opening a channel with a valid
    /// token (`init`); past it the server closes it. 0 turns it off.
    public var socketInitTimeoutSeconds = 10.0
    /// How often each node looks for tokens revoked by another node (or by `lockstep tokens
    /// revoke`) and for tokens that expired, and closes their sockets.
    public var tokenCheckIntervalSeconds = 0.25
    /// How long an access token stays valid.
    public var tokenLifetimeSeconds = 90.0 * 24 * 3600
    /// scrypt's cost parameter N for password hashes (a power of two).
    public var passwordHashCost = 1 << 15

    /// How long a JWKS fetched from an app's identity provider is used before it is fetched
    /// again (on the next token that needs it); until a fetch succeeds, the keys fetched
    /// before stay in use, so an unreachable provider signs nobody out.
    public var jwksRefreshSeconds = 600.0
    /// A token naming a key (`kid`) that the cached JWKS does not hold makes the server fetch
    /// the JWKS again, at most once per this many seconds per app: a provider that rotated its
    /// keys is heard of at once, and a stream of made-up `kid`s costs it one fetch a minute.
    public var jwksUnknownKeyRefreshSeconds = 60.0
    /// How long one JWKS fetch may take, connection and answer together.
    public var jwksFetchTimeoutSeconds = 10.0
    /// The largest JWKS answer read; a longer one fails the fetch.
    public var maximumJWKSBytes = 512 * 1024
    /// Whether a JWKS may be fetched from a loopback, private or link-local address
    /// (``PublicAddresses``); off, a JWKS URL is refused there, as a webhook endpoint is.
    public var jwksAllowPrivateAddresses = false
    /// The longest JWT accepted; a longer one is refused (401) before it is decoded.
    public var maximumJWTBytes = 16 * 1024

    /// How many spaces one user may be a member of (made or joined); past it making one is
    /// refused (403). Invitations are not counted against the invitee. 0 turns it off.
    public var maximumSpacesPerUser = 1000
    /// How many members and waiting invitations one space may have; past it inviting someone
    /// new is refused (403). 0 turns it off.
    public var maximumMembersPerSpace = 1000
    /// The largest blob (attachment) a user may upload; a larger upload is refused (413) before
    /// a byte of it is read.
    public var maximumBlobBytes: Int64 = 4 << 30
    /// The bytes of blobs one user may have uploaded (finished, and declared by uploads under
    /// way); past it an upload is refused (413). 0 turns it off.
    public var blobQuotaBytesPerUser: Int64 = 10 << 30
    /// How long a blob that nothing refers to is kept after it was last used (uploaded or
    /// referred to), and an upload nothing was written to: long enough for the change that
    /// refers to a new photo to follow its upload from a device with a poor link.
    public var blobGracePeriodSeconds = 24.0 * 3600
    /// How often blobs that nothing refers to are looked for and deleted; 0 never.
    public var blobCollectionIntervalSeconds = 3600.0

    public init() {}
}
