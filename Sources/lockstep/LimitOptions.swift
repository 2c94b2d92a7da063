import ArgumentParser
import Foundation
import LockstepServer

/// The server's limits as command-line options, each also read from an environment variable
/// (`--max-object-bytes` from `LOCKSTEP_MAX_OBJECT_BYTES`, and so on).
struct LimitOptions: ParsableArguments {
    @Option(name: .customLong("max-object-bytes"), help: "Largest object, as compact JSON.")
    var maximumObjectBytes: Int?
    @Option(name: .customLong("max-request-bytes"), help: "Largest HTTP request body.")
    var maximumRequestBytes: Int?
    @Option(name: .customLong("max-message-bytes"), help: "Largest streaming message.")
    var maximumMessageBytes: Int?
    @Option(name: .customLong("max-frame-bytes"), help: "Largest streaming message read at all; past it the connection closes (1009).")
    var maximumFrameBytes: Int?
    @Option(name: .customLong("max-channels"), help: "Channels (buckets) one streaming connection may open.")
    var maximumChannelsPerConnection: Int?
    @Option(name: .customLong("history-days"), help: "Days every version of an object is kept (and the change feed with it) (default 30).")
    var historyDays: Double?
    @Option(name: .customLong("retained-versions"), help: "Latest versions of an object kept whatever their age (default 60).")
    var retainedVersions: Int?
    @Option(name: .customLong("max-versions"), help: "Most versions of one object kept, however young; the oldest go first (default 10000).")
    var maximumVersionsPerObject: Int?
    @Option(name: .customLong("snapshot-interval"), help: "An object's whole data is kept every this many versions; the others are rebuilt from diffs (default 32).")
    var snapshotInterval: Int?
    @Option(name: .customLong("max-restore-changes"), help: "Most changes one restore of a bucket to a moment makes, as one group (default 100000).")
    var maximumRestoreChanges: Int?
    @Option(name: .customLong("removed-member-stamps"), help: "Removed members of one object whose removal's stamp is kept, the latest first, so that an older offline edit cannot bring them back (default 1000).")
    var removedMemberStampsPerObject: Int?
    @Option(name: .customLong("history-prune-seconds"), help: "How often old history is pruned, in the background; 0 never (default 600).")
    var historyPruneIntervalSeconds: Double?
    @Option(name: .customLong("max-changes-per-commit"), help: "Most changes one group commit (one transaction, one flush) carries (default 1000).")
    var maximumChangesPerCommit: Int?
    @Option(name: .customLong("max-changes-in-flight"), help: "A streaming connection's changes waiting for their commit before the server stops reading it (default 256).")
    var maximumChangesInFlight: Int?
    @Option(name: .customLong("changes-wait-seconds"), help: "How long GET /changes waits for a change.")
    var changesLongPollSeconds: Double?
    @Option(name: .customLong("heartbeat-timeout-seconds"), help: "Silence after which a streaming connection is closed.")
    var heartbeatTimeoutSeconds: Double?
    @Option(name: .customLong("outgoing-buffer-bytes"), help: "Bytes queued for a streaming connection before it is closed as a slow reader.")
    var outgoingBufferBytes: Int?
    @Option(name: .customLong("announcement-linger-seconds"), help: "How long an event loop that just wrote a change to many sockets waits to write the next, so a busy socket takes them in one write; 0: at once (default 0.005).")
    var announcementLingerSeconds: Double?
    @Option(name: .customLong("incoming-buffer-bytes"), help: "Bytes received from a streaming connection and not yet handled before the server stops reading it.")
    var incomingBufferBytes: Int?
    @Option(name: .customLong("messages-per-second"), help: "Messages other than changes a streaming connection may send per second (default 500).")
    var messagesPerSecond: Double?
    @Option(name: .customLong("changes-per-second"), help: "Changes a streaming connection may send per second (default 5000).")
    var changesPerSecond: Double?
    @Option(name: .customLong("http-requests-per-second"), help: "HTTP requests one caller may make per second.")
    var httpRequestsPerSecond: Double?
    @Option(name: .customLong("account-requests-per-minute"), help: "create/ and authorize/ requests one address may make per minute.")
    var accountRequestsPerMinute: Double?
    @Option(name: .customLong("password-attempts-per-minute"), help: "Password attempts per username per minute.")
    var passwordAttemptsPerMinute: Double?
    @Option(name: .customLong("max-connections-per-address"), help: "Connections one address may hold open at once (0: no limit).")
    var maximumConnectionsPerAddress: Int?
    @Option(name: .customLong("idle-connection-timeout-seconds"), help: "Time an HTTP connection may stay open with no request under way.")
    var idleConnectionTimeoutSeconds: Double?
    @Option(name: .customLong("request-header-timeout-seconds"), help: "Time a request's header has to arrive once it has begun.")
    var requestHeaderTimeoutSeconds: Double?
    @Option(name: .customLong("request-body-timeout-seconds"), help: "Time a request's body has to arrive after its header.")
    var requestBodyTimeoutSeconds: Double?
    @Option(name: .customLong("socket-init-timeout-seconds"), help: "Time a streaming connection has to open a channel with a valid token.")
    var socketInitTimeoutSeconds: Double?
    @Option(name: .customLong("token-check-interval-seconds"), help: "How often sockets of revoked or expired tokens are looked for.")
    var tokenCheckIntervalSeconds: Double?
    @Option(name: .customLong("token-lifetime-seconds"), help: "How long access tokens stay valid.")
    var tokenLifetimeSeconds: Double?
    @Option(name: .customLong("password-hash-cost"), help: "scrypt cost N for password hashes (a power of two).")
    var passwordHashCost: Int?
    @Option(name: .customLong("jwks-refresh-seconds"), help: "How long an app's fetched JWKS is used before it is fetched again (default 600).")
    var jwksRefreshSeconds: Double?
    @Option(name: .customLong("jwks-unknown-kid-seconds"), help: "A token with a kid the cached JWKS lacks fetches it again at most this often per app (default 60).")
    var jwksUnknownKeyRefreshSeconds: Double?
    @Option(name: .customLong("jwks-timeout-seconds"), help: "How long one JWKS fetch may take (default 10).")
    var jwksFetchTimeoutSeconds: Double?
    @Option(name: .customLong("max-jwks-bytes"), help: "Largest JWKS answer read (default 524288).")
    var maximumJWKSBytes: Int?
    @Option(name: .customLong("max-jwt-bytes"), help: "Longest JWT accepted (default 16384).")
    var maximumJWTBytes: Int?
    @Flag(
        name: .customLong("jwks-allow-private"),
        help: "Fetch identity providers' JWKS from loopback, private and link-local addresses too (env LOCKSTEP_JWKS_ALLOW_PRIVATE=1). Off: a server must not be a way into its own network.")
    var jwksAllowPrivate = false

    @Option(name: .customLong("max-spaces-per-user"), help: "Spaces one user may be a member of; 0: no limit (default 1000).")
    var maximumSpacesPerUser: Int?
    @Option(name: .customLong("max-members-per-space"), help: "Members and waiting invitations of one space; 0: no limit (default 1000).")
    var maximumMembersPerSpace: Int?
    @Option(name: .customLong("max-blob-bytes"), help: "Largest blob (attachment) a user may upload (default 4 GiB).")
    var maximumBlobBytes: Int64?
    @Option(name: .customLong("blob-quota-bytes"), help: "Bytes of blobs one user may upload, finished and under way; 0: no quota (default 10 GiB).")
    var blobQuotaBytesPerUser: Int64?
    @Option(name: .customLong("blob-grace-seconds"), help: "How long a blob nothing refers to, or an abandoned upload, is kept (default 86400).")
    var blobGracePeriodSeconds: Double?
    @Option(name: .customLong("blob-collection-seconds"), help: "How often blobs nothing refers to are deleted; 0 never (default 3600).")
    var blobCollectionIntervalSeconds: Double?

    func resolved() throws -> Limits {
        var limits = Limits()
        func pick<T: LosslessStringConvertible>(_ option: T?, _ variable: String) throws -> T? {
            if let option { return option }
            guard let text = ProcessInfo.processInfo.environment[variable] else { return nil }
            guard let value = T(text) else { throw ValidationError("\(variable)=\(text) is not valid") }
            return value
        }
        if let value = try pick(maximumObjectBytes, "LOCKSTEP_MAX_OBJECT_BYTES") { limits.maximumObjectBytes = value }
        if let value = try pick(maximumRequestBytes, "LOCKSTEP_MAX_REQUEST_BYTES") { limits.maximumRequestBytes = value }
        if let value = try pick(maximumMessageBytes, "LOCKSTEP_MAX_MESSAGE_BYTES") { limits.maximumMessageBytes = value }
        if let value = try pick(maximumFrameBytes, "LOCKSTEP_MAX_FRAME_BYTES") { limits.maximumFrameBytes = value }
        if let value = try pick(maximumChannelsPerConnection, "LOCKSTEP_MAX_CHANNELS") { limits.maximumChannelsPerConnection = value }
        if let value = try pick(historyDays, "LOCKSTEP_HISTORY_DAYS") { limits.historyRetentionSeconds = value * 24 * 3600 }
        if let value = try pick(retainedVersions, "LOCKSTEP_RETAINED_VERSIONS") { limits.retainedVersions = value }
        if let value = try pick(maximumVersionsPerObject, "LOCKSTEP_MAX_VERSIONS") { limits.maximumVersionsPerObject = value }
        if let value = try pick(snapshotInterval, "LOCKSTEP_SNAPSHOT_INTERVAL") {
            guard value > 0 else { throw ValidationError("the snapshot interval must be at least 1") }
            limits.snapshotInterval = value
        }
        if let value = try pick(maximumRestoreChanges, "LOCKSTEP_MAX_RESTORE_CHANGES") {
            guard value > 0 else { throw ValidationError("a restore must be allowed at least one change") }
            limits.maximumRestoreChanges = value
        }
        if let value = try pick(removedMemberStampsPerObject, "LOCKSTEP_REMOVED_MEMBER_STAMPS") {
            guard value >= 0 else { throw ValidationError("the removed member stamps kept cannot be fewer than 0") }
            limits.removedMemberStampsPerObject = value
        }
        if let value = try pick(historyPruneIntervalSeconds, "LOCKSTEP_HISTORY_PRUNE_SECONDS") { limits.historyPruneIntervalSeconds = value }
        if let value = try pick(maximumChangesInFlight, "LOCKSTEP_MAX_CHANGES_IN_FLIGHT") {
            guard value > 0 else { throw ValidationError("a connection must have room for at least one change in flight") }
            limits.maximumChangesInFlight = value
        }
        if let value = try pick(maximumChangesPerCommit, "LOCKSTEP_MAX_CHANGES_PER_COMMIT") {
            guard value > 0 else { throw ValidationError("a commit must carry at least one change") }
            limits.maximumChangesPerCommit = value
        }
        if let value = try pick(changesLongPollSeconds, "LOCKSTEP_CHANGES_WAIT_SECONDS") { limits.changesLongPollSeconds = value }
        if let value = try pick(heartbeatTimeoutSeconds, "LOCKSTEP_HEARTBEAT_TIMEOUT_SECONDS") { limits.heartbeatTimeoutSeconds = value }
        if let value = try pick(outgoingBufferBytes, "LOCKSTEP_OUTGOING_BUFFER_BYTES") { limits.outgoingBufferBytes = value }
        if let value = try pick(announcementLingerSeconds, "LOCKSTEP_ANNOUNCEMENT_LINGER_SECONDS") {
            guard value >= 0, value <= 1 else { throw ValidationError("the announcement linger must be between 0 and 1 second") }
            limits.announcementLingerSeconds = value
        }
        if let value = try pick(incomingBufferBytes, "LOCKSTEP_INCOMING_BUFFER_BYTES") { limits.incomingBufferBytes = value }
        if let value = try pick(messagesPerSecond, "LOCKSTEP_MESSAGES_PER_SECOND") { limits.messagesPerSecond = value }
        if let value = try pick(changesPerSecond, "LOCKSTEP_CHANGES_PER_SECOND") { limits.changesPerSecond = value }
        if let value = try pick(httpRequestsPerSecond, "LOCKSTEP_HTTP_REQUESTS_PER_SECOND") { limits.httpRequestsPerSecond = value }
        if let value = try pick(accountRequestsPerMinute, "LOCKSTEP_ACCOUNT_REQUESTS_PER_MINUTE") { limits.accountRequestsPerMinute = value }
        if let value = try pick(passwordAttemptsPerMinute, "LOCKSTEP_PASSWORD_ATTEMPTS_PER_MINUTE") { limits.passwordAttemptsPerMinute = value }
        if let value = try pick(maximumConnectionsPerAddress, "LOCKSTEP_MAX_CONNECTIONS_PER_ADDRESS") { limits.maximumConnectionsPerAddress = value }
        if let value = try pick(idleConnectionTimeoutSeconds, "LOCKSTEP_IDLE_CONNECTION_TIMEOUT_SECONDS") { limits.idleConnectionTimeoutSeconds = value }
        if let value = try pick(requestHeaderTimeoutSeconds, "LOCKSTEP_REQUEST_HEADER_TIMEOUT_SECONDS") { limits.requestHeaderTimeoutSeconds = value }
        if let value = try pick(requestBodyTimeoutSeconds, "LOCKSTEP_REQUEST_BODY_TIMEOUT_SECONDS") { limits.requestBodyTimeoutSeconds = value }
        if let value = try pick(socketInitTimeoutSeconds, "LOCKSTEP_SOCKET_INIT_TIMEOUT_SECONDS") { limits.socketInitTimeoutSeconds = value }
        if let value = try pick(tokenCheckIntervalSeconds, "LOCKSTEP_TOKEN_CHECK_INTERVAL_SECONDS") {
            guard value > 0 else { throw ValidationError("the token check interval must be more than 0 seconds") }
            limits.tokenCheckIntervalSeconds = value
        }
        if let value = try pick(tokenLifetimeSeconds, "LOCKSTEP_TOKEN_LIFETIME_SECONDS") { limits.tokenLifetimeSeconds = value }
        if let value = try pick(passwordHashCost, "LOCKSTEP_PASSWORD_HASH_COST") {
            guard value > 1, value & (value - 1) == 0 else { throw ValidationError("the password hash cost must be a power of two") }
            limits.passwordHashCost = value
        }
        if let value = try pick(jwksRefreshSeconds, "LOCKSTEP_JWKS_REFRESH_SECONDS") {
            guard value > 0 else { throw ValidationError("the JWKS refresh must be more than 0 seconds") }
            limits.jwksRefreshSeconds = value
        }
        if let value = try pick(jwksUnknownKeyRefreshSeconds, "LOCKSTEP_JWKS_UNKNOWN_KID_SECONDS") {
            guard value >= 0 else { throw ValidationError("the JWKS refresh on an unknown kid cannot be less than 0 seconds apart") }
            limits.jwksUnknownKeyRefreshSeconds = value
        }
        if let value = try pick(jwksFetchTimeoutSeconds, "LOCKSTEP_JWKS_TIMEOUT_SECONDS") {
            guard value > 0 else { throw ValidationError("the JWKS fetch timeout must be more than 0 seconds") }
            limits.jwksFetchTimeoutSeconds = value
        }
        if let value = try pick(maximumJWKSBytes, "LOCKSTEP_MAX_JWKS_BYTES") {
            guard value > 0 else { throw ValidationError("the largest JWKS must be at least 1 byte") }
            limits.maximumJWKSBytes = value
        }
        if let allowed = try environmentSwitch("LOCKSTEP_JWKS_ALLOW_PRIVATE") { limits.jwksAllowPrivateAddresses = allowed }
        if jwksAllowPrivate { limits.jwksAllowPrivateAddresses = true }
        if let value = try pick(maximumJWTBytes, "LOCKSTEP_MAX_JWT_BYTES") {
            guard value > 0 else { throw ValidationError("the longest JWT must be at least 1 byte") }
            limits.maximumJWTBytes = value
        }
        if let value = try pick(maximumSpacesPerUser, "LOCKSTEP_MAX_SPACES_PER_USER") { limits.maximumSpacesPerUser = value }
        if let value = try pick(maximumMembersPerSpace, "LOCKSTEP_MAX_MEMBERS_PER_SPACE") { limits.maximumMembersPerSpace = value }
        if let value = try pick(maximumBlobBytes, "LOCKSTEP_MAX_BLOB_BYTES") { limits.maximumBlobBytes = value }
        if let value = try pick(blobQuotaBytesPerUser, "LOCKSTEP_BLOB_QUOTA_BYTES") { limits.blobQuotaBytesPerUser = value }
        if let value = try pick(blobGracePeriodSeconds, "LOCKSTEP_BLOB_GRACE_SECONDS") { limits.blobGracePeriodSeconds = value }
        if let value = try pick(blobCollectionIntervalSeconds, "LOCKSTEP_BLOB_COLLECTION_SECONDS") { limits.blobCollectionIntervalSeconds = value }
        return limits
    }
}
