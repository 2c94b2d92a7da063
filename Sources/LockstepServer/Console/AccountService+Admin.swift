extension AccountService {
    /// Makes a user on the admin's say-so (the console's Users view): with a password the user
    /// can then `authorize/`, without one only tokens the admin issues. No token is issued.
    public func createUser(appID: String, username: String, password: String?) async throws -> UserRecord {
        guard try await store.app(id: appID) != nil else { throw AccountError(.notFound, "there is no app \(appID)") }
        let name = try Username(username)
        if let password { try Self.validate(password: password) }
        var passwordHash: String?
        if let password { passwordHash = try await passwords.hash(password) }
        let user = UserRecord(appID: appID, id: Secrets.randomHex(), username: name.display, passwordHash: passwordHash, createdAt: now())
        do {
            try await store.insertUser(user)
        } catch StoreError.duplicate {
            throw AccountError(.conflict, "the username \(name) is taken")
        }
        return user
    }
}
