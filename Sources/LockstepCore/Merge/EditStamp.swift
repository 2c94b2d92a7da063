/// Who made an edit and when, in corrected (server) time: what the merge rules compare.
public struct EditStamp: Sendable, Hashable, Codable {
    /// When the edit was made, in nanoseconds since the Unix epoch on the server's clock, as the
    /// editing device's ``ServerClock`` estimated it. `nil` for clients that send no time
    /// (unmodified Simperium clients), whose edits are ordered by arrival.
    public var time: Int64?
    /// The client that made the edit; breaks ties between equal times.
    public var clientID: String

    public init(time: Int64?, clientID: String) {
        self.time = time
        self.clientID = clientID
    }
}
