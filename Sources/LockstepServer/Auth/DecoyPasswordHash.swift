import Synchronization

/// A password hash made with the server's own cost, of a password nobody knows, for sign-in
/// attempts with no real hash to check: an unknown name, or a user without a password.
/// Checking the attempt against it costs what a real check costs, so how long `authorize/`
/// takes does not tell whether a name exists.
///
/// Made on first use, not at startup: one scrypt run is a tenth of a second at the default cost.
final class DecoyPasswordHash: Sendable {
    private let hasher: PasswordHasher
    private let made = Mutex<String?>(nil)

    init(hasher: PasswordHasher) {
        self.hasher = hasher
    }

    var hash: String {
        if let hash = made.withLock({ $0 }) { return hash }
        // scrypt fails only for parameters the hasher already checked.
        let hash = (try? hasher.hash(Secrets.randomHex())) ?? ""
        return made.withLock { stored in
            if stored == nil { stored = hash }
            return stored!
        }
    }
}
