#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import LockstepCore
import NIOCore
import NIOPosix

/// One `PATCH` of an upload: the bytes of its body appended to what arrived before, hashed as
/// they go, and flushed to disk before the new offset is answered, so an offset the server
/// gives is one it keeps. A body cut off midway keeps what arrived: the client asks the offset
/// again (`HEAD`) and goes on from there.
struct UploadAppend {
    let directory: BlobDirectory
    let hashes: UploadHashes
    let appID: String
    let uploader: String
    let hash: BlobHash

    /// Appends `body` at `offset`, where the upload must stand, and returns the new offset;
    /// on the last byte, checks the hash and makes the blob complete.
    func run(offset: Int64, length: Int64, type: String, body: some AsyncSequence<ByteBuffer, any Error>) async throws -> Int64 {
        let path = directory.uploadPath(appID, uploader: uploader, hash)
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw BlobUploadError(.notFound, "there is no upload of \(hash) under way: create it first (POST)") }
        defer { close(descriptor) }
        // Two requests writing one upload at once would interleave; the second is told so.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            throw BlobUploadError(.conflict, "another request is writing this upload of \(hash): ask its offset (HEAD) and go on from there")
        }
        var status = stat()
        fstat(descriptor, &status)
        guard Int64(status.st_size) == offset else {
            throw BlobUploadError(.conflict, "the upload of \(hash) is at byte \(status.st_size), not \(offset): send from there")
        }

        let key = UploadHashes.Key(appID: appID, uploader: uploader, hash: hash)
        var hasher = try hashes.take(key, at: offset) ?? Self.hashPrefix(descriptor, through: offset)
        var written = offset
        var failure: (any Error)?
        do {
            for try await buffer in body {
                guard written + Int64(buffer.readableBytes) <= length else {
                    throw BlobUploadError(.tooLarge, "the body runs past the upload's length of \(length) bytes")
                }
                try buffer.withUnsafeReadableBytes { bytes in
                    try Self.write(descriptor, bytes, at: written)
                    hasher.update(bufferPointer: bytes)
                }
                written += Int64(buffer.readableBytes)
            }
        } catch {
            failure = error
        }
        try await Self.flush(descriptor)
        if let failure {
            hashes.keep(hasher, for: key, at: written)
            throw failure
        }
        guard written == length else {
            hashes.keep(hasher, for: key, at: written)
            return written
        }
        hashes.forget(key)
        let received = BlobHash(digest: hasher.finalize())
        guard received == hash else {
            directory.discardUpload(appID, uploader: uploader, hash)
            throw BlobUploadError(
                .checksumMismatch,
                "the uploaded bytes hash to \(received), not \(hash) as declared; the upload was discarded: send it again from byte 0")
        }
        try directory.completeUpload(appID, uploader: uploader, hash, type: type)
        return written
    }

    private static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        var done = 0
        while done < bytes.count {
            let result = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            guard result > 0 else { throw BlobFileError("cannot write an upload") }
            done += result
        }
    }

    /// The running hash of the upload's first `offset` bytes, read back from disk.
    private static func hashPrefix(_ descriptor: Int32, through offset: Int64) throws -> SHA256 {
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var position: Int64 = 0
        while position < offset {
            let count = buffer.withUnsafeMutableBytes { bytes in
                pread(descriptor, bytes.baseAddress, min(bytes.count, Int(offset - position)), off_t(position))
            }
            guard count > 0 else { throw BlobFileError("cannot read an upload back") }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            position += Int64(count)
        }
        return hasher
    }

    /// `fsync` on the thread pool: it can take the disk's whole latency.
    private static func flush(_ descriptor: Int32) async throws {
        try await NIOThreadPool.singleton.runIfActive {
            guard fsync(descriptor) == 0 else { throw BlobFileError("cannot flush an upload") }
        }
    }
}
