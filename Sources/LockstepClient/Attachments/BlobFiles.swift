import Crypto
import LockstepCore
import Foundation

/// The device's copy of attachment bytes: one file per blob, named by its SHA-256, in the
/// `attachments` folder of the store directory.
///
/// A file appears whole or not at all: bytes go to a temporary file, which is flushed to the
/// disk (`fsync`) and then renamed to its hash, and the folder is flushed so the rename
/// survives a power cut. Since a name is the hash of the content, writing the same bytes twice
/// is harmless (and repairs a damaged copy), and a file can be checked at any time by hashing
/// it again.
struct BlobFiles: Sendable {
    let directory: URL

    /// How much is read or written at a time: memory stays flat whatever the size of a blob.
    static let bufferSize = 1 << 20

    init(storeDirectory: URL) throws {
        directory = storeDirectory.appendingPathComponent("attachments", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func url(for sha256: String) -> URL {
        precondition(Attachment.isHash(sha256), "not a SHA-256: \(sha256.prefix(80))")
        return directory.appendingPathComponent(sha256)
    }

    func exists(_ sha256: String) -> Bool {
        FileManager.default.fileExists(atPath: url(for: sha256).path)
    }

    /// Stores `data` and returns its SHA-256 (hex).
    func store(_ data: Data) throws -> String {
        let writer = try BlobWriter(files: self)
        try writer.append(data)
        return try writer.finish()
    }

    /// Copies the file at `source` in, a buffer at a time, and returns its SHA-256 and size.
    func store(contentsOf source: URL) throws -> (sha256: String, size: Int64) {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        let writer = try BlobWriter(files: self)
        while let chunk = try input.read(upToCount: Self.bufferSize), !chunk.isEmpty {
            try writer.append(chunk)
        }
        let size = writer.count
        return (try writer.finish(), size)
    }

    /// `count` bytes (fewer at the end) of blob `sha256` from `offset`.
    func read(_ sha256: String, offset: Int64, count: Int) throws -> Data {
        let handle = try FileHandle(forReadingFrom: url(for: sha256))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        return try handle.read(upToCount: count) ?? Data()
    }

    /// The SHA-256 of what the file of `sha256` holds now: differs from `sha256` when the file
    /// was altered or damaged. `nil` when there is no file.
    func currentHash(of sha256: String) throws -> String? {
        guard let input = try? FileHandle(forReadingFrom: url(for: sha256)) else { return nil }
        defer { try? input.close() }
        return BlobHash(digest: try Self.hashing(input).hasher.finalize()).hex
    }

    /// Reads `handle` from where it stands to its end, hashing: the running hash and how many
    /// bytes it covers (where the handle now stands).
    static func hashing(_ handle: FileHandle) throws -> (hasher: SHA256, count: Int64) {
        var hasher = SHA256()
        var count: Int64 = 0
        while let chunk = try handle.read(upToCount: bufferSize), !chunk.isEmpty {
            hasher.update(data: chunk)
            count += Int64(chunk.count)
        }
        return (hasher, count)
    }

    func remove(_ sha256: String) {
        try? FileManager.default.removeItem(at: url(for: sha256))
    }

    /// Removes temporary files left by a process killed mid-write.
    func removeLeftovers() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasPrefix(BlobWriter.temporaryPrefix) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }

    /// Flushes the folder itself, so that a rename in it is on the disk.
    func syncDirectory() {
        let descriptor = open(directory.path, O_RDONLY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}

/// Writes one blob: appended to a temporary file while hashing, then flushed and renamed to
/// its hash by ``finish(expecting:)``. A writer dropped unfinished leaves a temporary file,
/// which the next ``BlobFiles/removeLeftovers()`` deletes.
final class BlobWriter {
    static let temporaryPrefix = ".partial-"

    private let files: BlobFiles
    private let temporary: URL
    private let handle: FileHandle
    private var hasher = SHA256()
    private(set) var count: Int64 = 0

    init(files: BlobFiles) throws {
        self.files = files
        temporary = files.directory.appendingPathComponent(Self.temporaryPrefix + UUID().uuidString)
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw AttachmentError.localStore("cannot create a file in \(files.directory.path)")
        }
        handle = try FileHandle(forWritingTo: temporary)
    }

    func append(_ data: Data) throws {
        hasher.update(data: data)
        try handle.write(contentsOf: data)
        count += Int64(data.count)
    }

    /// Flushes the bytes, names the file by their hash and returns it. With `expected`, a
    /// different hash throws ``AttachmentError/hashMismatch(expected:actual:)`` and keeps nothing.
    func finish(expecting expected: String? = nil) throws -> String {
        let sha256 = BlobHash(digest: hasher.finalize()).hex
        do {
            try handle.synchronize()
            try handle.close()
            if let expected, expected != sha256 { throw AttachmentError.hashMismatch(expected: expected, actual: sha256) }
            // Over a file of the same name too: that one may have been damaged since.
            let target = files.url(for: sha256)
            guard rename(temporary.path, target.path) == 0 else {
                throw AttachmentError.localStore("cannot rename into \(target.path): errno \(errno)")
            }
            files.syncDirectory()
            return sha256
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    /// Drops what was written.
    func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }
}
