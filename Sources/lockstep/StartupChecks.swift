import LockstepServer
import Logging

/// What `lockstep serve` tells the operator before it listens: files that others can read,
/// and accounts whose names collide under the canonical form (made before names were
/// compared that way: both kept, each still signing in by its exact name, the newer one
/// marked so that nobody new can take a third spelling).
enum StartupChecks {
    static func run(services: LockstepServices, storage: StorageOptions, logger: Logger) async throws {
        for warning in storage.fileWarnings { logger.warning("\(warning)") }
        for collision in try await services.store.usernameCollisions() {
            logger.warning("""
                app \(collision.appID): user \(collision.userID) "\(collision.username)" has the same name as \
                "\(collision.collidesWith)" once case and Unicode composition are set aside; both still sign in with \
                their exact names, but "\(collision.collidesWith)" owns the name: consider telling \
                "\(collision.username)" to move to another account
                """)
        }
    }
}
