/// A change in this client's peer log, with its position there.
struct LoggedPeerChange: Sendable, Equatable {
    var seq: Int64
    var change: PeerChange
}
