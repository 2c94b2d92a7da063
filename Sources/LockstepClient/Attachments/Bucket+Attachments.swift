public import Foundation

/// Photos and other binary data attached to objects.
///
/// ```swift
/// let items = try client.bucket("items")
/// let photo = try await items.attach(jpeg, type: "image/jpeg", to: "box-12", member: "photo")
/// try items.attachment("photo", of: "box-12")      // == photo, at once, online or not
/// let bytes = try await items.data(for: photo)     // the device's copy, or downloaded
/// for await progress in client.progress(of: photo) { print(progress.fractionCompleted) }
/// ```
///
/// The bytes are stored on the device when `attach` returns, and the object shows the
/// reference at once; the upload waits in a queue that survives the app being killed, behind
/// the data changes (by default), and resumes where it stopped. Other devices see the member
/// only once the server holds every byte: until then the change carrying it is held back,
/// while the object's other members sync as usual.
extension Bucket {
    /// Stores `data` on the device, sets `member` of the object under `key` to refer to it
    /// (creating the object if there is none), and queues the upload at `priority`, below
    /// data changes of that priority or above. Returns the reference.
    ///
    /// ```swift
    /// let photo = try await items.attach(jpeg, type: "image/jpeg", to: "box-12", member: "photo")
    /// ```
    ///
    /// The bytes are durable on the device when it returns. Other devices see the member once
    /// the server holds every byte.
    ///
    /// Throws ``LockstepClientError/removed(bucket:key:)`` for a key that was deleted, and what
    /// the file system threw when the bytes cannot be stored.
    @discardableResult
    public func attach(
        _ data: Data, type: String, to key: String, member: String, priority: ChangePriority = .low
    ) async throws -> Attachment {
        let attachment = try await replica.attach(.data(data), type: type, bucket: name, key: key, member: member, priority: priority)
        try await attachments.trim()
        return attachment
    }

    /// Like ``attach(_:type:to:member:priority:)``, with the bytes of the file at `url`, copied
    /// in a buffer at a time (memory stays flat for a long video). The file can go once this
    /// returns: the device keeps its own copy.
    ///
    /// Throws what reading the file threw, and as ``attach(_:type:to:member:priority:)`` does.
    @discardableResult
    public func attach(
        contentsOf url: URL, type: String, to key: String, member: String, priority: ChangePriority = .low
    ) async throws -> Attachment {
        let attachment = try await replica.attach(.file(url), type: type, bucket: name, key: key, member: member, priority: priority)
        try await attachments.trim()
        return attachment
    }

    /// The attachment that member `member` of the object under `key` refers to; `nil` when
    /// there is no such object or member, or the member is not an attachment.
    public func attachment(_ member: String, of key: String) throws -> Attachment? {
        try replica.attachment(bucket: name, key: key, member: member)
    }

    /// The bytes of `attachment`: the device's copy, or downloaded from the server (and kept
    /// in the device's cache, within ``LockstepClient/Configuration/attachmentCacheSize``).
    /// Throws ``AttachmentError/notFound(sha256:)`` when the server has no such blob for this
    /// user, and what the network threw when it cannot be reached.
    public func data(for attachment: Attachment) async throws -> Data {
        try await attachments.data(for: attachment)
    }

    /// A local file holding the bytes of `attachment`, downloaded first if needed; for
    /// attachments too large to hold in memory. Read it soon: a later download may evict it.
    public func fileURL(for attachment: Attachment) async throws -> URL {
        try await attachments.file(for: attachment)
    }
}
