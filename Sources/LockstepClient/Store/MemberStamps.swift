import GRDB
import LockstepCore

/// Reads and writes member stamps inside a transaction the caller holds.
enum MemberStamps {
    static func all(_ db: Database, _ bucket: String, _ key: String) throws -> [String: MemberStamp] {
        var stamps: [String: MemberStamp] = [:]
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT member, time, clientid, ccid FROM stamps WHERE bucket = ? AND key = ?"),
            arguments: [bucket, key])
        {
            stamps[row["member"]] = MemberStamp(time: row["time"], clientID: row["clientid"], changeID: row["ccid"])
        }
        return stamps
    }

    static func set(_ db: Database, _ bucket: String, _ key: String, members: some Sequence<String>, to stamp: MemberStamp) throws {
        for member in members {
            try db.executeCached(
                sql: """
                    INSERT INTO stamps (bucket, key, member, time, clientid, ccid) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (bucket, key, member) DO UPDATE SET
                        time = excluded.time, clientid = excluded.clientid, ccid = excluded.ccid
                    """,
                arguments: [bucket, key, member, stamp.time, stamp.clientID, stamp.changeID])
        }
    }

    /// The time to stamp a local edit of `members` made at `now`: never before the latest write of
    /// those members this device has seen. A device whose clock estimate runs behind another's
    /// would otherwise date its edit before the value it overwrote, and every other device would
    /// keep that value.
    static func editTime(_ db: Database, _ bucket: String, _ key: String, members: Set<String>, now: Int64?) throws -> Int64? {
        guard let now else { return nil }
        let stamps = try all(db, bucket, key)
        let latestSeen = members.compactMap { stamps[$0]?.time }.max()
        // A time comes from whoever wrote the member (a peer, any client through the server):
        // one at the end of time is matched, not overflowed past.
        return latestSeen.map { max(now, $0 < .max ? $0 + 1 : .max) } ?? now
    }

    /// Stamps each of `members` with `stamp(member)` where that is later than what it carries;
    /// returns the members that won.
    @discardableResult
    static func raise(
        _ db: Database, _ bucket: String, _ key: String, members: Set<String>, to stamp: (String) -> MemberStamp
    ) throws -> Set<String> {
        let current = try all(db, bucket, key)
        var won: Set<String> = []
        for member in members where current[member].map({ $0 < stamp(member) }) ?? true {
            try set(db, bucket, key, members: [member], to: stamp(member))
            won.insert(member)
        }
        return won
    }
}
