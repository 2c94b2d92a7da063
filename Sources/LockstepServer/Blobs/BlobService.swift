import Foundation
public import LockstepCore
public import NIOCore

/// Blobs: uploads (tus 1.0), who may read a blob, and who may refer to one.
///
/// A blob is readable by whoever uploaded it in full, and by whoever may read an object that
/// refers to it (its current data, or a version the history still keeps). A change may add a
/// reference only to a blob its writer uploaded in full (or, for the admin token, to any
/// complete blob): knowing a photo's hash must not be a key to it, so a user who copies a
/// reference to another object uploads the bytes again (the SDK does, from its cache).
public struct BlobService: Sendable {
    public let directory: BlobDirectory
    let store: any SyncStore
    let limits: Limits
    let hashes = UploadHashes()
    /// Records `blob` webhook events; `nil` records none.
    let webhooks: WebhookRecorder?

    public init(directory: BlobDirectory, store: any SyncStore, limits: Limits) {
        self.init(directory: directory, store: store, limits: limits, webhooks: nil)
    }

    init(directory: BlobDirectory, store: any SyncStore, limits: Limits, webhooks: WebhookRecorder?) {
        self.directory = directory
        self.store = store
        self.limits = limits
        self.webhooks = webhooks
    }

    /// The name an identity's uploads are kept under.
    static func uploader(_ identity: AccountService.Identity) -> String {
        identity.userID ?? "admin"
    }

    // MARK: Uploading

    /// Declares (or finds again) `identity`'s upload of `hash`: refused when `length` is past
    /// the largest blob or the uploader's quota.
    public func create(_ hash: BlobHash, length: Int64, type: String, by identity: AccountService.Identity) throws -> BlobDirectory.UploadState {
        let uploader = Self.uploader(identity)
        if let state = try directory.uploadState(identity.appID, uploader: uploader, hash) {
            if case .complete = state { return state }
            if case .partial(_, let declared, _) = state, declared == length { return state }
        }
        guard length >= 0 else { throw BlobUploadError(.badRequest, "Upload-Length must be 0 or more") }
        guard length <= limits.maximumBlobBytes else {
            throw BlobUploadError(.tooLarge, "a blob may have at most \(limits.maximumBlobBytes) bytes; this one has \(length)")
        }
        if limits.blobQuotaBytesPerUser > 0 && !identity.isAdmin {
            let used = try directory.usage(identity.appID, uploader: uploader)
            guard used + length <= limits.blobQuotaBytesPerUser else {
                throw BlobUploadError(
                    .tooLarge,
                    "the blob quota is \(limits.blobQuotaBytesPerUser) bytes a user, of which \(used) are used: \(length) more do not fit")
            }
        }
        try directory.declareUpload(identity.appID, uploader: uploader, hash, length: length, type: type)
        return .partial(offset: 0, length: length, type: type)
    }

    /// Where `identity`'s upload of `hash` stands; `nil` when there is none.
    public func state(_ hash: BlobHash, for identity: AccountService.Identity) throws -> BlobDirectory.UploadState? {
        try directory.uploadState(identity.appID, uploader: Self.uploader(identity), hash)
    }

    /// Appends a `PATCH` body at `offset` and returns the new offset (see ``UploadAppend``).
    public func append(
        _ body: some AsyncSequence<ByteBuffer, any Error>, at offset: Int64, to hash: BlobHash, by identity: AccountService.Identity
    ) async throws -> Int64 {
        let uploader = Self.uploader(identity)
        switch try directory.uploadState(identity.appID, uploader: uploader, hash) {
        case nil:
            throw BlobUploadError(.notFound, "there is no upload of \(hash) under way: create it first (POST)")
        case .complete(let length):
            guard offset == length else { throw BlobUploadError(.conflict, "the upload of \(hash) is complete at byte \(length)") }
            return length
        case .partial(_, let length, let type):
            let reached = try await UploadAppend(directory: directory, hashes: hashes, appID: identity.appID, uploader: uploader, hash: hash)
                .run(offset: offset, length: length, type: type, body: body)
            if reached == length {
                await webhooks?.record(appID: identity.appID, .blob) {
                    [
                        "app": .string(identity.appID), "hash": .string(hash.description), "size": .integer(length), "type": .string(type),
                        "uploader": ["user": identity.isAdmin ? .null : identity.userID.map(JSONValue.string) ?? .null],
                        "at": .integer(webhooks?.nowMilliseconds ?? 0),
                    ]
                }
            }
            return reached
        }
    }

    // MARK: Reading

    /// Whether `identity` may read the blob: it is complete, and they uploaded it, or may read
    /// an object that refers to it.
    public func mayRead(_ hash: BlobHash, _ identity: AccountService.Identity, services: LockstepServices) async throws -> Bool {
        let appID = identity.appID
        guard directory.completeSize(appID, hash) != nil else { return false }
        if identity.isAdmin || directory.hasUploaded(appID, uploader: Self.uploader(identity), hash) { return true }
        for reference in try await store.blobReferences(appID: appID, hash: hash) {
            guard try await mayRead(reference.scope, identity, services: services) else { continue }
            if try await BlobReferences.isLive(reference, in: store) { return true }
        }
        return false
    }

    private func mayRead(_ scope: BucketScope, _ identity: AccountService.Identity, services: LockstepServices) async throws -> Bool {
        switch scope.owner {
        case .user(let id):
            return id == identity.userID
        case .shared:
            return try await services.options(appID: scope.appID, bucket: scope.bucket).isShared
        case .space(let id):
            guard let userID = identity.userID else { return false }
            return try await store.spaceRole(appID: scope.appID, spaceID: id, userID: userID) != nil
        }
    }
}

extension BlobService: BlobReferenceChecking {
    package func mayRefer(to hash: BlobHash, appID: String, author: ChangeAuthor) -> Bool {
        guard directory.completeSize(appID, hash) != nil else { return false }
        if case .user(let id) = author, !directory.hasUploaded(appID, uploader: id, hash) { return false }
        directory.touch(appID, hash)
        return true
    }
}
