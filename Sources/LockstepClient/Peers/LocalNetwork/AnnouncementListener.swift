import NIOCore

/// Passes every announcement heard on the group to `heard`.
final class AnnouncementListener: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let heard: @Sendable (PeerAnnouncement) -> Void

    init(heard: @escaping @Sendable (PeerAnnouncement) -> Void) {
        self.heard = heard
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = Self.unwrapInboundIn(data)
        if let announcement = PeerAnnouncement(bytes: Array(envelope.data.readableBytesView), from: envelope.remoteAddress.ipAddress) {
            heard(announcement)
        }
    }
}
