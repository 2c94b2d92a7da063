/// Why a peer link was refused or ended.
public enum PeerSyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer could not prove it holds the bucket's peer key (a stranger, another user's
    /// bucket, or a message altered on the way).
    case unauthenticated(String)
    /// The peer broke the peer protocol.
    case protocolViolation(String)
    /// There is no peer key for the bucket yet: fetch it while the server is reachable
    /// (``PeerSync/prepare()``).
    case noPeerKey(bucket: String)
    /// A message over ``PeerSync/Configuration/maximumMessageBytes``.
    case messageTooLarge(Int)

    /// A sentence saying what went wrong.
    public var description: String {
        switch self {
        case .unauthenticated(let reason): "peer not authenticated: \(reason)"
        case .protocolViolation(let reason): "peer protocol violation: \(reason)"
        case .noPeerKey(let bucket): "no peer key for bucket \(bucket): fetch it while the server is reachable"
        case .messageTooLarge(let size): "a peer message of \(size) bytes is over the limit"
        }
    }
}
