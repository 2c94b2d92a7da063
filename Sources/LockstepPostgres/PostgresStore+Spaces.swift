public import LockstepServer
import Logging
import PostgresNIO

/// Spaces, their members and invitations (see ``SpaceStore``).
///
/// Nodes change members at the same time, so every change to a space's members first locks
/// the space's row: the last owner is counted on a state no other transaction changes
/// meanwhile. An invitation and the creation of its user both take an advisory lock on the
/// name, so one of them always sees the other: the invitation finds the user, or the user's
/// creation finds the invitation. A member's removal (or a changed role, or the deletion) is
/// announced to the other nodes from inside its transaction (``SpaceNotification``), with the
/// space's membership epoch it moved to, under the same lock (``SpaceMembership``).
extension PostgresStore {
    public func insertSpace(_ space: SpaceRecord, ownerID: String?) async throws {
        do {
            try await transaction { connection in
                try await connection.query("""
                    INSERT INTO spaces (app_id, id, name, created_at) VALUES (\(space.appID), \(space.id), \(space.name), \(space.createdAt))
                    """, logger: logger)
                if let ownerID {
                    try await connection.query("""
                        INSERT INTO space_members (app_id, space_id, user_id, role, added_at)
                        VALUES (\(space.appID), \(space.id), \(ownerID), \(SpaceRole.owner.rawValue), \(space.createdAt))
                        """, logger: logger)
                }
                return .commit(())
            }
        } catch where error.isUniqueViolation {
            throw StoreError.duplicate("space \(space.name)")
        }
    }

    public func space(appID: String, name: String) async throws -> SpaceRecord? {
        try await rows("SELECT app_id, id, name, created_at FROM spaces WHERE app_id = \(appID) AND name = \(name)").first.map(Self.space)
    }

    public func spaces(appID: String, memberID: String?) async throws -> [SpaceListing] {
        guard let memberID else {
            return try await rows("""
                SELECT app_id, id, name, created_at FROM spaces WHERE app_id = \(appID) ORDER BY name COLLATE "C"
                """).map { SpaceListing(space: try Self.space($0), role: nil) }
        }
        return try await rows("""
            SELECT s.app_id, s.id, s.name, s.created_at, m.role FROM space_members m
            JOIN spaces s ON s.app_id = m.app_id AND s.id = m.space_id
            WHERE m.app_id = \(appID) AND m.user_id = \(memberID) ORDER BY s.name COLLATE "C"
            """).map { row in
            SpaceListing(space: try Self.space(row), role: SpaceRole(rawValue: try row.makeRandomAccess()[4].decode(String.self)))
        }
    }

    public var spacesAreShared: Bool { true }

    public func spaceMembershipEpoch(appID: String, spaceID: String) async throws -> Int64? {
        try await rows("SELECT membership_epoch FROM spaces WHERE app_id = \(appID) AND id = \(spaceID)").first.map { try $0.decode(Int64.self) }
    }

    public func spaceMembership(appID: String, spaceID: String, userID: String) async throws -> SpaceMembership? {
        try await rows("""
            SELECT role, epoch FROM space_members WHERE app_id = \(appID) AND space_id = \(spaceID) AND user_id = \(userID)
            """).first.flatMap { row in
            let (role, epoch) = try row.decode((String, Int64).self)
            return SpaceRole(rawValue: role).map { SpaceMembership(role: $0, epoch: epoch) }
        }
    }

    public func spaceMembers(appID: String, spaceID: String) async throws -> [SpaceMember] {
        let members = try await rows("""
            SELECT u.username, m.role, m.user_id FROM space_members m JOIN users u ON u.app_id = m.app_id AND u.id = m.user_id
            WHERE m.app_id = \(appID) AND m.space_id = \(spaceID)
            """).compactMap { row in
            let (email, role, userID) = try row.decode((String, String, String).self)
            return SpaceRole(rawValue: role).map { SpaceMember(email: email, role: $0, userID: userID) }
        }
        let invitations = try await rows("""
            SELECT email, role FROM space_invitations WHERE app_id = \(appID) AND space_id = \(spaceID)
            """).compactMap { row in
            let (email, role) = try row.decode((String, String).self)
            return SpaceRole(rawValue: role).map { SpaceMember(email: email, role: $0, userID: nil) }
        }
        return (members + invitations).sorted { $0.email < $1.email }
    }

    public func setSpaceRole(appID: String, spaceID: String, email: String, role: SpaceRole) async throws -> SpaceMembershipChange {
        let canonical = Username.canonical(email)
        let now = ServerClockSource().now()
        return try await transaction { connection in
            guard let name = try await Self.lockSpace(appID: appID, spaceID: spaceID, connection, logger) else { return .rollback(.notMember) }
            try await Self.lockName(canonical, appID: appID, connection, logger)
            if let userID = try await Self.userID(appID: appID, canonical: canonical, connection, logger) {
                let previous = try await Self.role(appID: appID, spaceID: spaceID, userID: userID, connection, logger)
                if previous == role { return .rollback(.unchanged) }
                if previous == .owner, try await Self.ownerCount(appID: appID, spaceID: spaceID, connection, logger) == 1 {
                    return .rollback(.wouldLeaveNoOwner)
                }
                let epoch = try await Self.nextEpoch(appID: appID, spaceID: spaceID, connection, logger)
                try await connection.query("""
                    INSERT INTO space_members (app_id, space_id, user_id, role, added_at, epoch)
                    VALUES (\(appID), \(spaceID), \(userID), \(role.rawValue), \(now), \(epoch))
                    ON CONFLICT (app_id, space_id, user_id) DO UPDATE SET role = excluded.role, epoch = excluded.epoch
                    """, logger: logger)
                if previous != nil {
                    try await announce(
                        SpaceRevocation(appID: appID, space: name, spaceID: spaceID, userID: userID, cause: .roleChanged, epoch: epoch), connection)
                }
                return .commit(.changed(userID: userID, from: previous, epoch: epoch))
            }
            let previous = try await connection.query("""
                SELECT role FROM space_invitations WHERE app_id = \(appID) AND space_id = \(spaceID) AND canonical_email = \(canonical)
                """, logger: logger).collect().first.flatMap { SpaceRole(rawValue: try $0.decode(String.self)) }
            if previous == role { return .rollback(.unchanged) }
            try await connection.query("""
                INSERT INTO space_invitations (app_id, space_id, canonical_email, email, role, invited_at)
                VALUES (\(appID), \(spaceID), \(canonical), \(email), \(role.rawValue), \(now))
                ON CONFLICT (app_id, space_id, canonical_email) DO UPDATE SET role = excluded.role, email = excluded.email
                """, logger: logger)
            return .commit(.changed(userID: nil, from: previous, epoch: 0))
        }
    }

    public func removeSpaceMember(appID: String, spaceID: String, email: String) async throws -> SpaceMembershipChange {
        let canonical = Username.canonical(email)
        return try await transaction { connection in
            guard let name = try await Self.lockSpace(appID: appID, spaceID: spaceID, connection, logger) else { return .rollback(.notMember) }
            if let userID = try await Self.userID(appID: appID, canonical: canonical, connection, logger),
                let previous = try await Self.role(appID: appID, spaceID: spaceID, userID: userID, connection, logger)
            {
                if previous == .owner, try await Self.ownerCount(appID: appID, spaceID: spaceID, connection, logger) == 1 {
                    return .rollback(.wouldLeaveNoOwner)
                }
                try await connection.query("""
                    DELETE FROM space_members WHERE app_id = \(appID) AND space_id = \(spaceID) AND user_id = \(userID)
                    """, logger: logger)
                let epoch = try await Self.nextEpoch(appID: appID, spaceID: spaceID, connection, logger)
                try await announce(
                    SpaceRevocation(appID: appID, space: name, spaceID: spaceID, userID: userID, cause: .removed, epoch: epoch), connection)
                return .commit(.changed(userID: userID, from: previous, epoch: epoch))
            }
            let removed = try await connection.query("""
                DELETE FROM space_invitations WHERE app_id = \(appID) AND space_id = \(spaceID) AND canonical_email = \(canonical)
                RETURNING role
                """, logger: logger).collect().first.flatMap { SpaceRole(rawValue: try $0.decode(String.self)) }
            guard let removed else { return .rollback(.notMember) }
            return .commit(.changed(userID: nil, from: removed, epoch: 0))
        }
    }

    public func deleteSpace(appID: String, spaceID: String) async throws -> [String] {
        let owner = BucketScope.Owner.space(spaceID).key
        return try await transaction { connection in
            guard let name = try await Self.lockSpace(appID: appID, spaceID: spaceID, connection, logger) else { return .rollback([]) }
            let members = try await connection.query("""
                DELETE FROM space_members WHERE app_id = \(appID) AND space_id = \(spaceID) RETURNING user_id
                """, logger: logger).collect().map { try $0.decode(String.self) }
            try await connection.query("DELETE FROM space_invitations WHERE app_id = \(appID) AND space_id = \(spaceID)", logger: logger)
            try await connection.query("DELETE FROM spaces WHERE app_id = \(appID) AND id = \(spaceID)", logger: logger)
            // Buckets first: a commit locks its bucket's row before its objects, so deleting in
            // the same order never deadlocks with one.
            let buckets = try await connection.query("""
                DELETE FROM buckets WHERE app_id = \(appID) AND owner = \(owner) RETURNING id
                """, logger: logger).collect().map { try $0.decode(Int64.self) }
            for table in ["objects", "snapshots", "presence_claims"] {
                try await connection.query("DELETE FROM \(unescaped: table) WHERE app_id = \(appID) AND owner = \(owner)", logger: logger)
            }
            try await connection.query("DELETE FROM changes WHERE bucket_id = ANY(\(buckets)::bigint[])", logger: logger)
            try await announce(SpaceRevocation(appID: appID, space: name, spaceID: spaceID, userID: nil, cause: .deleted, epoch: nil), connection)
            return .commit(members)
        }
    }

    /// Turns the invitations waiting for `user`'s name into memberships (inside ``insertUser(_:)``,
    /// under the name's lock).
    static func acceptInvitations(of user: UserRecord, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO space_members (app_id, space_id, user_id, role, added_at, epoch)
            SELECT i.app_id, i.space_id, \(user.id), i.role, \(user.createdAt), s.membership_epoch FROM space_invitations i
            JOIN spaces s ON s.app_id = i.app_id AND s.id = i.space_id
            WHERE i.app_id = \(user.appID) AND i.canonical_email = \(user.canonicalUsername)
            ON CONFLICT DO NOTHING
            """, logger: logger)
        try await connection.query("""
            DELETE FROM space_invitations WHERE app_id = \(user.appID) AND canonical_email = \(user.canonicalUsername)
            """, logger: logger)
    }

    /// Serializes, for the rest of the transaction, everything that decides what a name is in
    /// an app: creating its user, inviting it.
    static func lockName(_ canonical: String, appID: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtext('lockstep name'), hashtext(\(appID + "/" + canonical)))", logger: logger)
    }

    /// Locks the space's row and returns its name; `nil` when there is no such space.
    private static func lockSpace(appID: String, spaceID: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> String? {
        try await connection.query("SELECT name FROM spaces WHERE app_id = \(appID) AND id = \(spaceID) FOR UPDATE", logger: logger)
            .collect().first.map { try $0.decode(String.self) }
    }

    /// Tells the other nodes, once the transaction commits, to enforce `revocation` (see
    /// ``PostgresChangeRelay``); this node's ``SpaceService`` enforces it itself.
    private func announce(_ revocation: SpaceRevocation, _ connection: PostgresConnection) async throws {
        let payload = SpaceNotification(node: nodeID, revocation: revocation).payload
        try await connection.query("SELECT pg_notify(\(configuration.notificationChannel), \(payload))", logger: logger)
    }

    private static func userID(appID: String, canonical: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> String? {
        try await connection.query("""
            SELECT id FROM users WHERE app_id = \(appID) AND canonical_username = \(canonical) AND NOT canonical_collision
            """, logger: logger).collect().first.map { try $0.decode(String.self) }
    }

    /// Moves the space's membership epoch on (its row is locked) and returns it.
    private static func nextEpoch(appID: String, spaceID: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int64 {
        try await connection.query("""
            UPDATE spaces SET membership_epoch = membership_epoch + 1 WHERE app_id = \(appID) AND id = \(spaceID) RETURNING membership_epoch
            """, logger: logger).collect().first.map { try $0.decode(Int64.self) } ?? 0
    }

    private static func role(appID: String, spaceID: String, userID: String, _ connection: PostgresConnection, _ logger: Logger)
        async throws -> SpaceRole?
    {
        try await connection.query("""
            SELECT role FROM space_members WHERE app_id = \(appID) AND space_id = \(spaceID) AND user_id = \(userID)
            """, logger: logger).collect().first.flatMap { SpaceRole(rawValue: try $0.decode(String.self)) }
    }

    private static func ownerCount(appID: String, spaceID: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        try await connection.query("""
            SELECT count(*) FROM space_members WHERE app_id = \(appID) AND space_id = \(spaceID) AND role = \(SpaceRole.owner.rawValue)
            """, logger: logger).collect().first.map { Int(try $0.decode(Int64.self)) } ?? 0
    }

    private static func space(_ row: PostgresRow) throws -> SpaceRecord {
        let cells = row.makeRandomAccess()
        return SpaceRecord(
            appID: try cells[0].decode(String.self), id: try cells[1].decode(String.self), name: try cells[2].decode(String.self),
            createdAt: try cells[3].decode(Int64.self))
    }
}
