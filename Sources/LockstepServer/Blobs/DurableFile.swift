#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Writes that survive a crash once they return: the bytes are flushed, and so is the
/// directory entry that names them. Blob files are private to the server's account (0600).
enum DurableFile {
    /// Writes `bytes` to a new file beside `path`, flushes it and renames it over `path`.
    static func save(_ bytes: [UInt8], at path: String) throws {
        let temporary = path + ".incoming"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BlobFileError("cannot create \(temporary)") }
        defer { close(descriptor) }
        guard PrivateFiles.writeAll(bytes, to: descriptor) else { throw BlobFileError("cannot write \(temporary)") }
        guard fsync(descriptor) == 0 else { throw BlobFileError("cannot flush \(temporary)") }
        try move(temporary, to: path)
    }

    /// Renames `source` to `destination` (replacing it) and flushes the directory.
    static func move(_ source: String, to destination: String) throws {
        guard rename(source, destination) == 0 else { throw BlobFileError("cannot rename \(source) to \(destination)") }
        syncDirectory(of: destination)
    }

    /// Flushes the directory that holds `path`, so that a new name in it lasts.
    static func syncDirectory(of path: String) {
        let directory = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return }
        fsync(directory)
        close(directory)
    }
}

/// A blob file that could not be written, with the system's reason.
struct BlobFileError: Error, CustomStringConvertible {
    var description: String

    init(_ what: String) {
        description = "\(what): \(String(cString: strerror(errno)))"
    }
}
