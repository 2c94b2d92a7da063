public import Foundation
public import LockstepCore

/// Where blobs live on disk, and the few facts about them the server keeps beside their bytes.
///
/// ```
/// <root>/<app>/complete/<hh>/<hex>        a blob's bytes, once their hash was checked
/// <root>/<app>/complete/<hh>/<hex>.type   its media type
/// <root>/<app>/uploads/<uploader>/<hex>   an upload under way: the bytes so far
/// <root>/<app>/uploads/<uploader>/<hex>.upload   its declared length and type
/// <root>/<app>/owners/<uploader>/<hex>    the uploader finished it: they may read and refer to it
/// ```
///
/// Everything is a file, so nodes that share the directory (PostgreSQL deployments mount one
/// volume on every node) share blobs, uploads in progress and who uploaded what; and a blob
/// never appears half-written: its bytes are synced under the upload's name and renamed into
/// `complete/` in one step. The uploader is the user id (`admin` for the admin token).
public struct BlobDirectory: Sendable {
    public let root: URL

    public init(root: URL) {
        self.root = root
    }

    /// Where an upload stands for one uploader.
    public enum UploadState: Sendable, Equatable {
        /// Bytes `0..<offset` of a blob of `length` bytes have arrived.
        case partial(offset: Int64, length: Int64, type: String)
        /// The uploader finished this blob (it is complete and theirs to read).
        case complete(length: Int64)
    }

    // MARK: Paths

    func blobPath(_ appID: String, _ hash: BlobHash) -> String {
        appDirectory(appID) + "/complete/" + hash.hex.prefix(2) + "/" + hash.hex
    }

    func uploadPath(_ appID: String, uploader: String, _ hash: BlobHash) -> String {
        appDirectory(appID) + "/uploads/" + uploader + "/" + hash.hex
    }

    private func ownerPath(_ appID: String, uploader: String, _ hash: BlobHash) -> String {
        appDirectory(appID) + "/owners/" + uploader + "/" + hash.hex
    }

    private func appDirectory(_ appID: String) -> String {
        root.path + "/" + appID
    }

    // MARK: Reading

    /// The size of a complete blob; `nil` when the server does not hold it in full.
    public func completeSize(_ appID: String, _ hash: BlobHash) -> Int64? {
        FileStatus(path: blobPath(appID, hash))?.size
    }

    /// The media type the uploader declared for a complete blob.
    public func type(_ appID: String, _ hash: BlobHash) -> String {
        (try? String(contentsOfFile: blobPath(appID, hash) + ".type", encoding: .utf8)) ?? "application/octet-stream"
    }

    /// Whether `uploader` finished uploading this blob (and it is still held).
    public func hasUploaded(_ appID: String, uploader: String, _ hash: BlobHash) -> Bool {
        FileStatus(path: ownerPath(appID, uploader: uploader, hash)) != nil && completeSize(appID, hash) != nil
    }

    /// Where `uploader`'s upload of `hash` stands; `nil` when they have none.
    public func uploadState(_ appID: String, uploader: String, _ hash: BlobHash) throws -> UploadState? {
        if hasUploaded(appID, uploader: uploader, hash), let size = completeSize(appID, hash) { return .complete(length: size) }
        let path = uploadPath(appID, uploader: uploader, hash)
        guard let declared = try? Data(contentsOf: URL(fileURLWithPath: path + ".upload")),
            case .object(let fields) = try JSONValue(parsing: String(decoding: declared, as: UTF8.self)),
            let length = fields["length"]?.integerValue
        else { return nil }
        return .partial(offset: FileStatus(path: path)?.size ?? 0, length: length, type: fields["type"]?.stringValue ?? "application/octet-stream")
    }

    /// The bytes `uploader` holds: blobs they finished and the declared lengths of their
    /// uploads under way (a quota counts what is promised, so uploads cannot race past it).
    public func usage(_ appID: String, uploader: String) throws -> Int64 {
        var total: Int64 = 0
        for name in Self.names(in: appDirectory(appID) + "/owners/" + uploader) {
            if let hash = BlobHash(hex: name), let size = completeSize(appID, hash) { total += size }
        }
        for name in Self.names(in: appDirectory(appID) + "/uploads/" + uploader) where name.hasSuffix(".upload") {
            if let hash = BlobHash(hex: name.dropLast(".upload".count)),
                case .partial(_, let length, _)? = try uploadState(appID, uploader: uploader, hash)
            {
                total += length
            }
        }
        return total
    }

    // MARK: Writing

    /// Declares an upload: its length and type, kept until it completes. Declaring it again
    /// with the same length keeps what arrived; with another length starts it over.
    public func declareUpload(_ appID: String, uploader: String, _ hash: BlobHash, length: Int64, type: String) throws {
        let path = uploadPath(appID, uploader: uploader, hash)
        if case .partial(_, let declared, _)? = try uploadState(appID, uploader: uploader, hash), declared == length { return }
        try Self.makeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        let fields: JSONObject = ["length": .integer(length), "type": .string(type)]
        try DurableFile.save(Array(JSONValue.object(fields).jsonBytes), at: path + ".upload")
        try DurableFile.save([], at: path)
    }

    /// Makes a finished upload the blob `hash` (its bytes were checked against it): renamed into
    /// place in one step, unless the blob is held already (another uploader's copy, the same
    /// bytes), and recorded as `uploader`'s.
    func completeUpload(_ appID: String, uploader: String, _ hash: BlobHash, type: String) throws {
        let upload = uploadPath(appID, uploader: uploader, hash)
        let blob = blobPath(appID, hash)
        try Self.makeDirectory(URL(fileURLWithPath: blob).deletingLastPathComponent().path)
        if completeSize(appID, hash) == nil {
            try DurableFile.save(Array(type.utf8), at: blob + ".type")
            try DurableFile.move(upload, to: blob)
        } else {
            unlink(upload)
            touch(appID, hash)
        }
        let owner = ownerPath(appID, uploader: uploader, hash)
        try Self.makeDirectory(URL(fileURLWithPath: owner).deletingLastPathComponent().path)
        try DurableFile.save([], at: owner)
        unlink(upload + ".upload")
    }

    /// Forgets an upload and what arrived of it (its bytes did not match their hash).
    func discardUpload(_ appID: String, uploader: String, _ hash: BlobHash) {
        let path = uploadPath(appID, uploader: uploader, hash)
        unlink(path)
        unlink(path + ".upload")
    }

    /// Marks a blob as just used (a change referred to it), so that collection leaves it for
    /// another grace period whatever it found before.
    public func touch(_ appID: String, _ hash: BlobHash) {
        utimensat(AT_FDCWD, blobPath(appID, hash), nil, 0)
    }

    // MARK: Collection

    /// The apps that have blobs.
    func apps() -> [String] {
        Self.names(in: root.path)
    }

    /// Every complete blob of an app, with when it was last used (completed or referred to).
    func completeBlobs(_ appID: String) -> [(hash: BlobHash, lastUsed: Date)] {
        var blobs: [(BlobHash, Date)] = []
        let complete = appDirectory(appID) + "/complete"
        for shard in Self.names(in: complete) {
            for name in Self.names(in: complete + "/" + shard) {
                guard let hash = BlobHash(hex: name), let status = FileStatus(path: complete + "/" + shard + "/" + name) else { continue }
                blobs.append((hash, status.modified))
            }
        }
        return blobs
    }

    /// Uploads under way that nothing was written to since `cutoff`, as (uploader, hash).
    func staleUploads(_ appID: String, before cutoff: Date) -> [(uploader: String, hash: BlobHash)] {
        var stale: [(String, BlobHash)] = []
        let uploads = appDirectory(appID) + "/uploads"
        for uploader in Self.names(in: uploads) {
            for name in Self.names(in: uploads + "/" + uploader) {
                guard let hash = BlobHash(hex: name), let status = FileStatus(path: uploads + "/" + uploader + "/" + name),
                    status.modified < cutoff
                else { continue }
                stale.append((uploader, hash))
            }
        }
        return stale
    }

    /// Deletes a blob, and every uploader's claim on it.
    func delete(_ appID: String, _ hash: BlobHash) {
        let blob = blobPath(appID, hash)
        unlink(blob)
        unlink(blob + ".type")
        let owners = appDirectory(appID) + "/owners"
        for uploader in Self.names(in: owners) { unlink(owners + "/" + uploader + "/" + hash.hex) }
    }

    // MARK: Files

    private static func names(in directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    private static func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}

/// What `stat` says of a file.
struct FileStatus {
    var size: Int64
    var modified: Date

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        size = Int64(info.st_size)
        modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }
}
