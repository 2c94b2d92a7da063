#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on a data directory (`flock` on its `serve.lock`), held by a running
/// server for its whole life, so that nothing replaces its database under it (a restore), and
/// two servers never share one SQLite store. The kernel releases it when the process ends,
/// however it ends.
public final class DataDirectoryLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock, or throws at once, naming the directory, when another process holds it.
    public init(directory: String) throws {
        try PrivateFiles.createDirectory(directory)
        let path = directory + "/serve.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw PrivateFileError("cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw PrivateFileError("a Lockstep server is running on \(directory) (it holds \(path)): stop it first")
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}
