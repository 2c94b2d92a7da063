import LockstepCore

/// How a channel on a space's bucket learns that this user lost the space.
extension SocketSession {
    /// `N:?:{"code":403,"message":…}`: the server ended the channel because this user's right
    /// to the bucket's space changed: removed, the space deleted, or given another role. The
    /// frame says which only in words, so the channel is opened again: a member whose role
    /// changed gets it back, anyone else the refusal ``spaceChannelRefused(_:_:_:_:_:)`` handles.
    /// Any other error frame is only logged.
    func channelEnded(_ channel: Int, _ bucket: String, _ payload: String, _ send: AsyncStream<String>.Continuation, _ phases: Locked<[Phase]>) {
        let error = try? JSONValue(parsing: payload)
        guard SpaceName.space(ofBucket: bucket) != nil, error?["code"]?.integerValue == 403 else {
            return context.logger.info("channel \(channel) (\(bucket)): \(payload)")
        }
        // Every command sent after the end is answered with the same frame: reopen once.
        let reopens = phases.withLock { phases in
            switch phases[channel] {
            case .reopening, .forgotten: return false
            default:
                phases[channel] = .reopening(reason: error?["message"]?.stringValue ?? "the server ended the channel")
                return true
            }
        }
        guard reopens else { return }
        context.setLive(bucket, false)
        send.yield("\(channel):init:\(initMessage(bucket))")
    }

    /// `N:auth:{"code":404,…}` on a space's bucket, the answer any stranger gets: asks the
    /// server whether this user is still in the space. If not, the bucket is forgotten and the
    /// channel stays closed; if so (the channel was opened while an owner changed this user's
    /// role), it is opened again shortly. `false` for any other refusal: the token's.
    func spaceChannelRefused(
        _ channel: Int, _ bucket: String, _ payload: String, _ send: AsyncStream<String>.Continuation, _ phases: Locked<[Phase]>
    ) async throws -> Bool {
        guard SpaceName.space(ofBucket: bucket) != nil, (try? JSONValue(parsing: payload))?["code"]?.integerValue == 404 else {
            return false
        }
        let reason: String? = if case .reopening(let reason) = phases.withLock({ $0[channel] }) { reason } else { nil }
        if try await context.forgetIfSpaceLost(bucket, reason: reason) {
            phases.withLock { $0[channel] = .forgotten }
        } else {
            let opening = "\(channel):init:\(initMessage(bucket))"
            Task {
                try await Task.sleep(for: .milliseconds(500))
                send.yield(opening)
            }
        }
        return true
    }
}
