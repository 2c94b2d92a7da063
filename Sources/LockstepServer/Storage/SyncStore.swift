public import LockstepCore

/// Where Lockstep keeps everything: apps, users, tokens, bucket options, objects, their
/// versions and each bucket's change feed.
///
/// The embedded SQLite store is the default; a PostgreSQL store lets several server nodes
/// share one database. Both run the same test suite. Stores hold no merge logic: the
/// ``BucketService`` decides what a change does and hands the store one ``ObjectWrite`` to
/// commit atomically, with a compare-and-swap on the object's version so that concurrent
/// writers (on one node or several) never lose an update.
public protocol SyncStore: Sendable {
    // MARK: Accounts

    func insertApp(_ app: AppRecord) async throws
    func app(id: String) async throws -> AppRecord?
    func apps() async throws -> [AppRecord]

    /// Inserts a user; throws ``StoreError/duplicate`` when the app has a user whose name has
    /// the same canonical form (``Username/canonical(_:)``).
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
    /// The data of one retained version of an object.
    func objectData(_ scope: BucketScope, key: String, version: Int) async throws -> JSONObject?
    /// The changes of one object that made versions after `version`, oldest first.
    func changes(_ scope: BucketScope, key: String, after version: Int) async throws -> [ChangeRecord]
    /// The change a client change id was accepted as, if it was.
    func change(_ scope: BucketScope, changeID: String) async throws -> ChangeRecord?

    /// Commits one change atomically, or reports why not.
    func commit(_ scope: BucketScope, _ write: ObjectWrite) async throws -> CommitOutcome

    /// The bucket's feed after a cursor, oldest first; `nil` when the cursor is unknown.
    func feed(_ scope: BucketScope, after cursor: ChangeVersion, limit: Int) async throws -> [ChangeRecord]?
    /// A page of the bucket's live objects, most recently modified first.
    func index(_ scope: BucketScope, _ query: IndexQuery) async throws -> IndexPage

    /// Changes to a bucket name across all its owners, in commit order (`GET /all`, admin only).
    func appFeed(appID: String, bucket: String, after cursor: Int64, limit: Int) async throws -> [AppFeedEntry]

    // MARK: Presence

    /// This server run's name in ``PresenceClaim``s: new each time the store is opened.
    var nodeID: String { get }
    /// Records a claim; recording it twice is harmless.
    func insertPresenceClaim(_ claim: PresenceClaim) async throws
    func deletePresenceClaims(_ claims: [PresenceClaim]) async throws
    /// The claims of servers that are gone: earlier runs on this database (SQLite), or nodes
    /// no longer connected to it (PostgreSQL).
    func orphanedPresenceClaims() async throws -> [PresenceClaim]
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

/// What a change does to one object, ready to commit.
public struct ObjectWrite: Sendable {
    /// The version the object must still be at (0 when it must not exist yet).
    public var expectedVersion: Int
    /// The object after the change; its `sequence` is assigned by the store.
    public var object: StoredObject
    /// The change as the feed will record it; its `sequence` is assigned by the store.
    public var change: ChangeRecord
    /// How many versions of the object to keep for rebasing late changes and answering `e:`.
    public var retainedVersions: Int

    public init(expectedVersion: Int, object: StoredObject, change: ChangeRecord, retainedVersions: Int) {
        self.expectedVersion = expectedVersion
        self.object = object
        self.change = change
        self.retainedVersions = retainedVersions
    }
}

public enum CommitOutcome: Sendable, Equatable {
    /// The change is durable; the record carries its feed position.
    case committed(ChangeRecord, ChangeVersion)
    /// Another change reached the object first; plan again against the new version.
    case versionConflict
    /// The client change id was accepted before, as this change.
    case duplicate(ChangeRecord)
}

public struct IndexQuery: Sendable {
    /// Entries at or before this feed sequence only, so that every page of one walk describes
    /// the same snapshot; `nil` for the current state.
    public var snapshot: Int64?
    /// Continue after this position of an earlier page.
    public var after: IndexPosition?
    /// Only objects changed after this sequence (`since`).
    public var changedAfter: Int64?
    public var limit: Int
    public var includeData: Bool

    public init(snapshot: Int64? = nil, after: IndexPosition? = nil, changedAfter: Int64? = nil, limit: Int, includeData: Bool) {
        self.snapshot = snapshot
        self.after = after
        self.changedAfter = changedAfter
        self.limit = limit
        self.includeData = includeData
    }
}

/// A place in an index walk: objects are ordered by their last change, newest first.
public struct IndexPosition: Sendable, Hashable {
    public var sequence: Int64
    public var key: String

    public init(sequence: Int64, key: String) {
        self.sequence = sequence
        self.key = key
    }
}

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
    /// Where the next page starts; `nil` on the last page.
    public var next: IndexPosition?

    public init(current: ChangeVersion, entries: [Entry], next: IndexPosition?) {
        self.current = current
        self.entries = entries
        self.next = next
    }
}

public enum StoreError: Error, Equatable {
    /// A unique name (app id, username) is taken.
    case duplicate(String)
    /// The database's secrets are sealed under another server key than the one given.
    case wrongServerKey(expected: String, given: String)
}

extension StoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .duplicate(let name):
            "\(name) exists already"
        case .wrongServerKey(let expected, let given):
            "the database's secrets are sealed under server key \(expected), and this server's key is \(given): "
                + "start it with the key file (or LOCKSTEP_SERVER_KEY) the database was first used with"
        }
    }
}
