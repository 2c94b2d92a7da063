/// What an event is about: an endpoint names the types it wants.
public enum WebhookEventType: String, Sendable, Hashable, CaseIterable, Comparable {
    /// A change committed to any bucket, a removal included.
    case change
    /// A space's members changed: someone invited, added, given another role, or removed.
    case spaceMember = "space.member"
    /// An object of a presence bucket was claimed by a connection or user, or released.
    case presence
    /// A blob finished uploading.
    case blob
    /// The server recorded a purchase of the timed store.
    case purchase

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The names, for messages.
    static var names: String { allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") }
}
