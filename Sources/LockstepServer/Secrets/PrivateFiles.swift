#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Files and directories only the server's own account may read: the data directory (0700),
/// the database and its `-wal` and `-shm` files (0600), the server key (0600) and the
/// default app's credentials (0600).
///
/// They are created with these modes whatever the umask. Existing ones are left as they
/// are, since an operator may have widened them on purpose (a backup group, say), but
/// ``warnings(directory:files:)`` names each one that others can read, and the server logs
/// that at startup.
public enum PrivateFiles {
    /// Creates `path` (and its missing parents) as a directory only its owner may enter;
    /// an existing directory is left as it is.
    public static func createDirectory(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw PrivateFileError("\(path) exists and is not a directory") }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && !FileManager.default.fileExists(atPath: parent) {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw PrivateFileError("cannot create the directory \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Creates an empty file at `path` that only its owner may read and write, unless it
    /// exists; `true` if it was created now.
    @discardableResult
    public static func createFile(_ path: String) throws -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            if errno == EEXIST { return false }
            throw PrivateFileError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        return true
    }

    /// Writes `contents` to a new file at `path` with mode 0600, and flushes it to disk;
    /// fails if the file exists.
    ///
    /// The file appears whole or not at all: the bytes go to a file of their own beside it,
    /// which is then linked at `path` (a link, unlike a rename, refuses to replace one there).
    /// Two servers starting at once (two instances of the systemd unit, say) both making the
    /// server key: the second finds the first's key complete, never an empty file.
    public static func writeNewFile(_ path: String, contents: String) throws {
        let draft = path + ".new-" + UUID().uuidString
        let descriptor = open(draft, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw PrivateFileError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { unlink(draft) }
        let written = writeAll(Array(contents.utf8), to: descriptor) && fsync(descriptor) == 0
        let problem = errno
        close(descriptor)
        guard written else { throw PrivateFileError("cannot write \(path): \(String(cString: strerror(problem)))") }
        guard link(draft, path) == 0 else { throw PrivateFileError("cannot create \(path): \(String(cString: strerror(errno)))") }
    }

    /// Writes all of `bytes` to `descriptor`, however many writes it takes; false on an error
    /// (with `errno` set).
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard result > 0 else { return false }
            written += result
        }
        return true
    }

    /// The permission bits of `path`; `nil` when it does not exist.
    public static func mode(of path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_mode) & 0o777
    }

    /// A sentence for each of `directory` and `files` (those that exist) that accounts other
    /// than its owner may reach: what the server warns about at startup.
    public static func warnings(directory: String?, files: [String]) -> [String] {
        var warnings: [String] = []
        if let directory, let mode = mode(of: directory), mode & 0o077 != 0 {
            warnings.append(
                "the data directory \(directory) has mode \(octal(mode)): other local accounts can reach the database; run chmod 700 \(directory)")
        }
        for file in files {
            guard let mode = mode(of: file), mode & 0o077 != 0 else { continue }
            warnings.append("\(file) has mode \(octal(mode)): other local accounts can read it; run chmod 600 \(file)")
        }
        return warnings
    }

    private static func octal(_ mode: Int) -> String {
        "0" + String(mode, radix: 8)
    }
}

/// A private file or directory that could not be made.
public struct PrivateFileError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
