import GRDB

/// Spaces, their members and invitations (see ``SpaceStore``). Every change to members is one
/// write transaction: SQLite's single writer serializes them, so "the last owner" is decided
/// on a state nobody else changes meanwhile, and each member change moves the space's
/// membership epoch on (``SpaceMembership``).
extension SQLiteStore {
    public func insertSpace(_ space: SpaceRecord, ownerID: String?) async throws {
        try await pool.write { db in
            do {
                try db.execute(
                    sql: "INSERT INTO spaces (app_id, id, name, created_at) VALUES (?, ?, ?, ?)",
                    arguments: [space.appID, space.id, space.name, space.createdAt])
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw StoreError.duplicate("space \(space.name)")
            }
            if let ownerID {
                try db.execute(
                    sql: "INSERT INTO space_members (app_id, space_id, user_id, role, added_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [space.appID, space.id, ownerID, SpaceRole.owner.rawValue, space.createdAt])
            }
        }
    }

    public func space(appID: String, name: String) async throws -> SpaceRecord? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM spaces WHERE app_id = ? AND name = ?"), arguments: [appID, name])
                .map(Self.space)
        }
    }

    public func spaces(appID: String, memberID: String?) async throws -> [SpaceListing] {
        try await pool.read { db in
            guard let memberID else {
                return try Row.fetchAll(db, sql: "SELECT * FROM spaces WHERE app_id = ? ORDER BY name", arguments: [appID])
                    .map { SpaceListing(space: Self.space($0), role: nil) }
            }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT s.*, m.role FROM space_members m JOIN spaces s ON s.app_id = m.app_id AND s.id = m.space_id
                    WHERE m.app_id = ? AND m.user_id = ? ORDER BY s.name
                    """,
                arguments: [appID, memberID]
            ).map { SpaceListing(space: Self.space($0), role: SpaceRole(rawValue: $0["role"])) }
        }
    }

    /// One server serves the file, so every change to members is made, and enforced, here.
    public var spacesAreShared: Bool { false }

    public func spaceMembershipEpoch(appID: String, spaceID: String) async throws -> Int64? {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT membership_epoch FROM spaces WHERE app_id = ? AND id = ?", arguments: [appID, spaceID])
        }
    }

    public func spaceMembership(appID: String, spaceID: String, userID: String) async throws -> SpaceMembership? {
        try await pool.read { db in try Self.membership(db, appID: appID, spaceID: spaceID, userID: userID) }
    }

    public func spaceMembers(appID: String, spaceID: String) async throws -> [SpaceMember] {
        try await pool.read { db in
            let members = try Row.fetchAll(
                db,
                sql: """
                    SELECT u.username, m.role, m.user_id FROM space_members m JOIN users u ON u.app_id = m.app_id AND u.id = m.user_id
                    WHERE m.app_id = ? AND m.space_id = ?
                    """,
                arguments: [appID, spaceID]
            ).compactMap { row in
                SpaceRole(rawValue: row["role"]).map { SpaceMember(email: row["username"], role: $0, userID: row["user_id"]) }
            }
            let invitations = try Row.fetchAll(
                db, sql: "SELECT email, role FROM space_invitations WHERE app_id = ? AND space_id = ?", arguments: [appID, spaceID]
            ).compactMap { row in SpaceRole(rawValue: row["role"]).map { SpaceMember(email: row["email"], role: $0, userID: nil) } }
            return (members + invitations).sorted { $0.email < $1.email }
        }
    }

    public func setSpaceRole(appID: String, spaceID: String, email: String, role: SpaceRole) async throws -> SpaceMembershipChange {
        let canonical = Username.canonical(email)
        let now = ServerClockSource().now()
        return try await pool.write { db in
            guard try Self.exists(db, appID: appID, spaceID: spaceID) else { return .notMember }
            if let userID = try Self.userID(db, appID: appID, canonical: canonical) {
                let previous = try Self.membership(db, appID: appID, spaceID: spaceID, userID: userID)?.role
                if previous == role { return .unchanged }
                if previous == .owner, try Self.ownerCount(db, appID: appID, spaceID: spaceID) == 1 { return .wouldLeaveNoOwner }
                let epoch = try Self.nextEpoch(db, appID: appID, spaceID: spaceID)
                try db.execute(
                    sql: """
                        INSERT INTO space_members (app_id, space_id, user_id, role, added_at, epoch) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT (app_id, space_id, user_id) DO UPDATE SET role = excluded.role, epoch = excluded.epoch
                        """,
                    arguments: [appID, spaceID, userID, role.rawValue, now, epoch])
                return .changed(userID: userID, from: previous, epoch: epoch)
            }
            let previous = try String.fetchOne(
                db, sql: "SELECT role FROM space_invitations WHERE app_id = ? AND space_id = ? AND canonical_email = ?",
                arguments: [appID, spaceID, canonical]
            ).flatMap(SpaceRole.init(rawValue:))
            if previous == role { return .unchanged }
            try db.execute(
                sql: """
                    INSERT INTO space_invitations (app_id, space_id, canonical_email, email, role, invited_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (app_id, space_id, canonical_email) DO UPDATE SET role = excluded.role, email = excluded.email
                    """,
                arguments: [appID, spaceID, canonical, email, role.rawValue, now])
            return .changed(userID: nil, from: previous, epoch: 0)
        }
    }

    public func removeSpaceMember(appID: String, spaceID: String, email: String) async throws -> SpaceMembershipChange {
        let canonical = Username.canonical(email)
        return try await pool.write { db in
            guard try Self.exists(db, appID: appID, spaceID: spaceID) else { return .notMember }
            if let userID = try Self.userID(db, appID: appID, canonical: canonical),
                let previous = try Self.membership(db, appID: appID, spaceID: spaceID, userID: userID)?.role
            {
                if previous == .owner, try Self.ownerCount(db, appID: appID, spaceID: spaceID) == 1 { return .wouldLeaveNoOwner }
                try db.execute(
                    sql: "DELETE FROM space_members WHERE app_id = ? AND space_id = ? AND user_id = ?", arguments: [appID, spaceID, userID])
                return .changed(userID: userID, from: previous, epoch: try Self.nextEpoch(db, appID: appID, spaceID: spaceID))
            }
            guard let previous = try String.fetchOne(
                db, sql: "SELECT role FROM space_invitations WHERE app_id = ? AND space_id = ? AND canonical_email = ?",
                arguments: [appID, spaceID, canonical]
            ).flatMap(SpaceRole.init(rawValue:)) else { return .notMember }
            try db.execute(
                sql: "DELETE FROM space_invitations WHERE app_id = ? AND space_id = ? AND canonical_email = ?",
                arguments: [appID, spaceID, canonical])
            return .changed(userID: nil, from: previous, epoch: 0)
        }
    }

    public func deleteSpace(appID: String, spaceID: String) async throws -> [String] {
        let owner = BucketScope.Owner.space(spaceID).key
        return try await pool.write { db in
            let members = try String.fetchAll(
                db, sql: "SELECT user_id FROM space_members WHERE app_id = ? AND space_id = ?", arguments: [appID, spaceID])
            try db.execute(sql: "DELETE FROM spaces WHERE app_id = ? AND id = ?", arguments: [appID, spaceID])
            for table in ["space_members", "space_invitations"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE app_id = ? AND space_id = ?", arguments: [appID, spaceID])
            }
            try keepAppSequence(db, appID)
            for table in ["buckets", "objects", "snapshots", "changes", "presence_claims"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE app_id = ? AND owner = ?", arguments: [appID, owner])
            }
            return members
        }
    }

    /// Turns the invitations waiting for `user`'s name into memberships (inside ``insertUser(_:)``).
    static func acceptInvitations(_ db: Database, of user: UserRecord) throws {
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO space_members (app_id, space_id, user_id, role, added_at, epoch)
                SELECT i.app_id, i.space_id, ?, i.role, ?, s.membership_epoch FROM space_invitations i
                JOIN spaces s ON s.app_id = i.app_id AND s.id = i.space_id
                WHERE i.app_id = ? AND i.canonical_email = ?
                """,
            arguments: [user.id, user.createdAt, user.appID, user.canonicalUsername])
        try db.execute(
            sql: "DELETE FROM space_invitations WHERE app_id = ? AND canonical_email = ?", arguments: [user.appID, user.canonicalUsername])
    }

    /// Whether the space exists still: one deleted since the caller looked it up gains no members.
    private static func exists(_ db: Database, appID: String, spaceID: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM spaces WHERE app_id = ? AND id = ?)", arguments: [appID, spaceID]) ?? false
    }

    /// The user who owns a canonical name (accounts colliding with it never sign in by it).
    private static func userID(_ db: Database, appID: String, canonical: String) throws -> String? {
        try String.fetchOne(
            db, sql: "SELECT id FROM users WHERE app_id = ? AND canonical_username = ? AND canonical_collision = 0",
            arguments: [appID, canonical])
    }

    private static func membership(_ db: Database, appID: String, spaceID: String, userID: String) throws -> SpaceMembership? {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT role, epoch FROM space_members WHERE app_id = ? AND space_id = ? AND user_id = ?"),
            arguments: [appID, spaceID, userID])
        guard let row, let role = SpaceRole(rawValue: row["role"]) else { return nil }
        return SpaceMembership(role: role, epoch: row["epoch"])
    }

    /// Moves the space's membership epoch on and returns it.
    private static func nextEpoch(_ db: Database, appID: String, spaceID: String) throws -> Int64 {
        try db.execute(sql: "UPDATE spaces SET membership_epoch = membership_epoch + 1 WHERE app_id = ? AND id = ?", arguments: [appID, spaceID])
        return try Int64.fetchOne(db, sql: "SELECT membership_epoch FROM spaces WHERE app_id = ? AND id = ?", arguments: [appID, spaceID]) ?? 0
    }

    private static func ownerCount(_ db: Database, appID: String, spaceID: String) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT count(*) FROM space_members WHERE app_id = ? AND space_id = ? AND role = ?",
            arguments: [appID, spaceID, SpaceRole.owner.rawValue]) ?? 0
    }

    private static func space(_ row: Row) -> SpaceRecord {
        SpaceRecord(appID: row["app_id"], id: row["id"], name: row["name"], createdAt: row["created_at"])
    }
}
