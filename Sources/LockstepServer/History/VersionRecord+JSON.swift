public import LockstepCore

extension VersionRecord {
    /// The version as history answers show it (the versions routes, `e:` to clients that ask for
    /// Lockstep's extensions):
    ///
    /// ```json
    /// {"v":7,"data":{…},"author":{"kind":"user","user":"5f2c…","email":"sam@example.com","client":"phone-1"},
    ///  "ccid":"c-17","committedAt":1795740145774,"t":1795740145702000000,"restoredFrom":3}
    /// ```
    ///
    /// A removal's version has `"removed":true` and no `data`. `author.kind` is `user`, `admin`
    /// (the app's admin token), `server` (presence removals, purchases) or `unknown` (a version
    /// from before authors were kept); `author.email` is a user author's username, given only
    /// when `showingEmail` (to the admin, and to a space's members, who see each other's
    /// emails anyway). `committedAt` is the server's commit time in milliseconds; `t` the edit
    /// time the client sent, in nanoseconds as on the wire; `restoredFrom` marks a restore.
    public func json(showingEmail: Bool) -> JSONObject {
        var author: JSONObject = ["client": .string(clientID)]
        switch self.author {
        case .user(let id)?:
            author["kind"] = "user"
            author["user"] = .string(id)
            if showingEmail, let authorName { author["email"] = .string(authorName) }
        case .admin?: author["kind"] = "admin"
        case .trusted?: author["kind"] = "server"
        case nil: author["kind"] = "unknown"
        }
        var fields: JSONObject = [
            "v": .integer(Int64(version)), "author": .object(author), "ccid": .string(changeID),
            "committedAt": .integer(committedAt / 1_000_000),
        ]
        if let data { fields["data"] = .object(data) } else { fields["removed"] = true }
        if let editTime { fields["t"] = .integer(editTime) }
        if let restoredFrom { fields["restoredFrom"] = .integer(Int64(restoredFrom)) }
        return fields
    }
}
