/// A member losing a space (every member, when it is deleted): what every node enforces on the
/// channels it holds (see ``SpaceService/enforce(_:)``).
public struct SpaceRevocation: Sendable, Equatable {
    public enum Cause: String, Sendable {
        case removed
        /// The member stays, with another role: their channels, opened with the old one, end.
        case roleChanged = "role"
        case deleted
    }

    public var appID: String
    /// The space's name: channels are found by the name they were opened with.
    public var space: String
    public var spaceID: String
    /// `nil` when the space was deleted: everyone's channels end.
    public var userID: String?
    public var cause: Cause
    /// The space's membership epoch the change reached (``SpaceMembership``): channels opened
    /// with an earlier membership end, later ones stay. `nil` ends every channel it covers
    /// (a deletion, whose space id is never used again; or a change not yet committed).
    public var epoch: Int64?

    public init(appID: String, space: String, spaceID: String, userID: String?, cause: Cause, epoch: Int64?) {
        self.appID = appID
        self.space = space
        self.spaceID = spaceID
        self.userID = userID
        self.cause = cause
        self.epoch = epoch
    }

    /// What the client is told in the frame that ends its channel.
    public var message: String {
        switch cause {
        case .removed: "you were removed from space \(space)"
        case .roleChanged: "your role in space \(space) changed: open the channel again"
        case .deleted: "space \(space) was deleted"
        }
    }
}
