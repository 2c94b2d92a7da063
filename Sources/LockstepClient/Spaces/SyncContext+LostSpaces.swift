extension SyncContext {
    /// Whether this user lost the space `bucket` belongs to, asked of the server; if so, the
    /// bucket is forgotten (``Replica/forget(bucket:reason:)``) with `reason` (the one the
    /// server gave as it ended the channel), and no longer synced. `false` at once for a bucket
    /// of no space, and `false` while the user is still a member.
    ///
    /// Asked, not assumed from the refusal that prompts it: a channel opened while an owner
    /// changes this user's role is refused as a stranger's would be, for a moment.
    func forgetIfSpaceLost(_ bucket: String, reason: String? = nil) async throws -> Bool {
        guard let space = SpaceName.space(ofBucket: bucket), try await api.reasonForLosing(space: space) != nil else { return false }
        let reason = reason ?? "you are not a member of space \(space)"
        try await replica.forget(bucket: bucket, reason: reason)
        logger.info("forgot bucket \(bucket): \(reason)")
        setLive(bucket, false)
        progress.signal()
        return true
    }
}
