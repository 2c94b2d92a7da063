public import LockstepCore

/// Where Lockstep keeps everything: apps, users, tokens, bucket options, objects, their
/// versions and each bucket's change feed.
///
/// The embedded SQLite store is the default; a PostgreSQL store lets several server nodes
/// share one database. Both run the same test suite. Stores hold no merge logic: a group of
/// changes is planned by ``GroupPlan`` (the merge rules, in order) inside the store's write
/// transaction, reading through ``GroupReads``, so the plan and the commit see one state on
/// one node or several. Spaces and their members are kept by the same store (``SpaceStore``),
/// the records of objects referring to blobs (``BlobReferenceStore``), what the console reads
/// (``ConsoleStore``), each app's identity provider (``IdentityProviderStore``), webhook
/// endpoints with the events they are owed (``WebhookStore``), and history (``HistoryStore``).
public protocol SyncStore: SpaceStore, BlobReferenceStore, ConsoleStore, IdentityProviderStore, WebhookStore, HistoryStore {
    // MARK: Accounts

    func insertApp(_ app: AppRecord) async throws
    /// Inserts `app` only if the store holds no app yet, and says whether it did: of the
    /// servers that start together on a new database, one makes the default app.
    func insertFirstApp(_ app: AppRecord) async throws -> Bool
    func app(id: String) async throws -> AppRecord?
    func apps() async throws -> [AppRecord]

    /// Inserts a user; throws ``StoreError/duplicate`` when the app has a user whose name has
    /// the same canonical form (``Username/canonical(_:)``). Invitations to spaces waiting for
    /// that name become the user's memberships in the same transaction.
    func insertUser(_ user: UserRecord) async throws
    /// The user who signs in as `username`: the one whose name has the same canonical form.
    /// Among accounts made before names were compared canonically, which may share one
    /// (see ``usernameCollisions()``), the one spelled exactly `username`, else the oldest.
    func user(appID: String, username: String) async throws -> UserRecord?
    func user(appID: String, id: String) async throws -> UserRecord?
    /// Replaces a user's password hash (`nil`: no password).
    func setPasswordHash(appID: String, userID: String, hash: String?) async throws
    /// Accounts whose names share a canonical form with an older account of their app: made
    /// before names were compared canonically, kept apart, and reported at startup.
    func usernameCollisions() async throws -> [UsernameCollision]

    func insertToken(_ token: TokenRecord) async throws
    func token(hash: String) async throws -> TokenRecord?
    /// The app, the token with this hash when it is one of the app's, and its user's name, in
    /// one read (see ``TokenAuthentication``; a default reads them one at a time).
    func tokenAuthentication(appID: String, tokenHash: String) async throws -> TokenAuthentication
    /// Deletes one token; `nil` when there was none.
    func deleteToken(hash: String) async throws -> TokenRecord?
    /// Deletes every token of a user but `keeping`, and returns the hashes deleted.
    func deleteTokens(appID: String, userID: String, keeping: String?) async throws -> [String]
    /// A count that grows whenever tokens are deleted, by any node: nodes watch it to learn
    /// that sockets opened with a token may have lost it.
    func tokenRevocations() async throws -> Int64
    /// Those of `hashes` that are still tokens (expired ones included).
    func existingTokens(among hashes: [String]) async throws -> Set<String>

    /// The app's secret for peer keys (hex), drawn at random on first use and the same on every
    /// node from then on; `nil` when there is no such app. Stored sealed (``ServerKey``).
    func peerSecret(appID: String) async throws -> String?

    // MARK: Buckets

    /// The options of a bucket of an app (shared, presence, read-only…); `nil` when none were set.
    func bucketOptions(appID: String, bucket: String) async throws -> JSONObject?
    func setBucketOptions(appID: String, bucket: String, options: JSONObject) async throws

    /// The bucket's current change version, creating the bucket (and drawing its epoch) if needed.
    func currentVersion(of scope: BucketScope) async throws -> ChangeVersion

    func object(_ scope: BucketScope, key: String) async throws -> StoredObject?
    /// The data of one retained version of an object; `nil` for a version that was pruned, a
    /// removal's version, or one that does not exist.
    func objectData(_ scope: BucketScope, key: String, version: Int) async throws -> JSONObject?
    /// The change a client change id was accepted as, if it was.
    func change(_ scope: BucketScope, changeID: String) async throws -> ChangeRecord?

    /// Plans and commits a group of changes as one transaction and one flush to disk, and
    /// answers each: committed (durable when this returns), or refused alone (see ``ChangeGroup``).
    /// Throws only when the transaction itself fails, and then nothing of the group is stored.
    func commit(_ group: ChangeGroup) async throws -> [ChangeOutcome]
    /// How many groups on disjoint sets of buckets may be committed at once: more than 1 only
    /// for a store whose commits to disjoint buckets never wait for each other's reads and
    /// still take their places in each app's commit order one after the other, so that one
    /// group is planned while another is written (see ``ChangeWriter``).
    var concurrentCommits: Int { get }

    /// Deletes the history `policy` no longer keeps, for up to `limit` objects after `cursor`
    /// (see ``HistoryPruner``).
    func pruneHistory(after cursor: PruneCursor?, limit: Int, policy: HistoryPolicy) async throws -> HistoryPruning

    /// The bucket's feed after a cursor, oldest first; `nil` when the cursor is unknown, or
    /// older than changes the history pruner deleted (the client must index again).
    func feed(_ scope: BucketScope, after cursor: ChangeVersion, limit: Int) async throws -> [ChangeRecord]?
    /// A page of an index walk of the bucket (see ``IndexPage``).
    func index(_ scope: BucketScope, _ query: IndexQuery) async throws -> IndexPage

    /// Changes to a bucket name across all its owners, in commit order (`GET /all`, admin only).
    func appFeed(appID: String, bucket: String, after cursor: Int64, limit: Int) async throws -> [AppFeedEntry]
    /// The last `limit` changes to a bucket name across all its owners, oldest first
    /// (`GET /all?newest=`): where a reader that wants only what is recent starts.
    func newestAppFeed(appID: String, bucket: String, limit: Int) async throws -> [AppFeedEntry]

    // MARK: Presence

    /// This server run's name in ``PresenceClaim``s: new each time the store is opened.
    var nodeID: String { get }
    /// Records a claim; recording it twice is harmless.
    func insertPresenceClaim(_ claim: PresenceClaim) async throws
    func deletePresenceClaims(_ claims: [PresenceClaim]) async throws
    /// The claims of servers that are gone: earlier runs on this database (SQLite), or nodes
    /// no longer connected to it (PostgreSQL); but not the claims held by a user who is still
    /// connected to a server that is not gone (see ``markUserConnected(_:)``).
    func orphanedPresenceClaims() async throws -> [PresenceClaim]
    /// Records that this server has a connection of the user (once, from their first one):
    /// `user` presence counts every node's connections.
    func markUserConnected(_ userID: String) async throws
    /// Records that this server's last connection of the user closed.
    func markUserDisconnected(_ userID: String) async throws
    /// Whether another server that is not gone has a connection of the user.
    func isUserConnectedElsewhere(_ userID: String) async throws -> Bool
    /// Every claim held by the user, whichever server recorded it.
    func presenceClaims(heldBy userID: String) async throws -> [PresenceClaim]
}

/// One change in an app-wide feed, with the owner whose bucket it changed.
public struct AppFeedEntry: Sendable, Equatable {
    public var ownerKey: String
    /// The change's position among all changes of the app.
    public var appSequence: Int64
    public var change: ChangeRecord

    public init(ownerKey: String, appSequence: Int64, change: ChangeRecord) {
        self.ownerKey = ownerKey
        self.appSequence = appSequence
        self.change = change
    }
}

public struct IndexQuery: Sendable {
    /// List the objects as they stood at this feed sequence, so that every page of one walk
    /// describes the same moment; `nil` for the current state (the first page's `current`).
    public var snapshot: Int64?
    /// Continue below this place (see ``IndexPage``), where an earlier page ended.
    public var before: Int64?
    /// Only objects changed after this sequence (`since`).
    public var changedAfter: Int64?
    public var limit: Int
    public var includeData: Bool

    public init(snapshot: Int64? = nil, before: Int64? = nil, changedAfter: Int64? = nil, limit: Int, includeData: Bool) {
        self.snapshot = snapshot
        self.before = before
        self.changedAfter = changedAfter
        self.limit = limit
        self.includeData = includeData
    }
}

/// A page of an index walk: objects newest change first (as Simperium lists them), each at
/// its version as of the walk's snapshot.
///
/// Every object that existed at the snapshot is on exactly one page of the walk, whatever
/// changes meanwhile: an object's place is its last change at or before the snapshot (see
/// ``IndexAsOf``), not its latest, and an object changed (or removed) after the snapshot is
/// listed at its version as of the snapshot (or, when that version was pruned, at its current
/// one), so the changes after `current` that the client then receives apply to what it
/// indexed. Objects created after the snapshot are not listed: they arrive as changes.
public struct IndexPage: Sendable {
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var version: Int
        public var data: JSONObject?

        public init(key: String, version: Int, data: JSONObject?) {
            self.key = key
            self.version = version
            self.data = data
        }
    }

    public var current: ChangeVersion
    public var entries: [Entry]
    /// The place the next page starts below; `nil` on the last page.
    public var nextBefore: Int64?

    public init(current: ChangeVersion, entries: [Entry], nextBefore: Int64?) {
        self.current = current
        self.entries = entries
        self.nextBefore = nextBefore
    }
}

public enum StoreError: Error, Equatable {
    /// A unique name (app id, username) is taken.
    case duplicate(String)
    /// The database's secrets are sealed under another server key than the one given.
    case wrongServerKey(expected: String, given: String)
    /// A newer Lockstep has migrated the database past what this version knows (the
    /// migrations it does not know, by name or number).
    case newerSchema(unknownMigrations: [String])
}

extension StoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .duplicate(let name):
            "\(name) exists already"
        case .wrongServerKey(let expected, let given):
            "the database's secrets are sealed under server key \(expected), and this server's key is \(given): "
                + "start it with the key file (or LOCKSTEP_SERVER_KEY) the database was first used with"
        case .newerSchema(let unknown):
            "the database was migrated by a newer Lockstep (migrations \(unknown.joined(separator: ", ")) are unknown to this "
                + "version): run that version or a later one on it; this one would misread what it wrote"
        }
    }
}

extension SyncStore {
    /// One group at a time.
    public var concurrentCommits: Int { 1 }
}

/// A store that can also commit a group on the calling thread, blocking it until the group is
/// durable: the ``ChangeWriter`` then commits on a ``SerialThread`` instead of hopping to the
/// store's own thread and back for each group.
protocol BlockingCommitStore: SyncStore {
    /// ``SyncStore/commit(_:)``, on the calling thread.
    func commitBlocking(_ group: ChangeGroup) throws -> [ChangeOutcome]
}
