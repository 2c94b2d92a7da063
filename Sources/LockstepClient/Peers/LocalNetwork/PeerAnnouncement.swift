import LockstepCore

/// What a device multicasts on the local network every few moments: who it is, the tag of the
/// bucket it syncs, and the TCP port it accepts peers on.
struct PeerAnnouncement: Sendable, Equatable {
    var peerID: String
    var tag: String
    var port: Int
    /// Where the announcement came from (filled in on receipt).
    var host: String?

    var bytes: [UInt8] {
        JSONValue.object([
            "lockstep-peer": .integer(1), "peer": .string(peerID), "tag": .string(tag), "port": .integer(Int64(port)),
        ]).jsonBytes
    }

    init(peerID: String, tag: String, port: Int, host: String? = nil) {
        self.peerID = peerID
        self.tag = tag
        self.port = port
        self.host = host
    }

    /// `nil` for anything that is not a Lockstep announcement (other traffic on the group).
    init?(bytes: [UInt8], from host: String?) {
        guard let json = try? JSONValue(parsing: bytes), json["lockstep-peer"]?.integerValue == 1,
            let peerID = json["peer"]?.stringValue, let tag = json["tag"]?.stringValue,
            let port = json["port"]?.integerValue, (1...65535).contains(port)
        else { return nil }
        self.init(peerID: peerID, tag: tag, port: Int(port), host: host)
    }
}
