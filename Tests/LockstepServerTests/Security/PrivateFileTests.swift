import Foundation
import LockstepCore
import LockstepServer
import Testing

/// The database, its journal files and the server key are the server's account's alone,
/// whatever the umask: a local account must not copy every object, name and secret.
@Suite("Security: private files")
struct PrivateFileTests {
    @Test func theDataDirectoryAndDatabaseFilesAreOwnerOnly() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-files-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("data").path
        let previous = umask(0o022)
        defer { umask(previous) }
        try PrivateFiles.createDirectory(directory)
        let store = try SQLiteStore(path: directory + "/lockstep.sqlite")
        let app = try await insertTestApp(store)
        _ = try await store.peerSecret(appID: app)
        #expect(PrivateFiles.mode(of: directory) == 0o700)
        for file in ["lockstep.sqlite", "lockstep.sqlite-wal", "lockstep.sqlite-shm", "server.key"] {
            #expect(PrivateFiles.mode(of: directory + "/" + file) == 0o600, "\(file)")
        }
        #expect(PrivateFiles.warnings(directory: directory, files: [directory + "/lockstep.sqlite"]).isEmpty)
    }

    @Test func widerModesAreWarnedAbout() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-wide-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = FileManager.default.createFile(atPath: directory + "/lockstep.sqlite", contents: Data(), attributes: [.posixPermissions: 0o644])
        let warnings = PrivateFiles.warnings(directory: directory, files: [directory + "/lockstep.sqlite", directory + "/missing"])
        #expect(warnings.count == 2, "\(warnings)")
        #expect(warnings.first?.contains("0755") == true && warnings.first?.contains("chmod 700") == true, "\(warnings)")
        #expect(warnings.last?.contains("0644") == true && warnings.last?.contains("chmod 600") == true, "\(warnings)")
        // An existing directory is left as the operator made it.
        try PrivateFiles.createDirectory(directory)
        #expect(PrivateFiles.mode(of: directory) == 0o755)
    }
}
