/// What a member may do in a ``Space``.
///
/// | right | reader | writer | owner |
/// |---|---|---|---|
/// | read the space's buckets, receive their changes, list the members, leave | yes | yes | yes |
/// | write the space's buckets | | yes | yes |
/// | invite, change roles, remove members, delete the space | | | yes |
///
/// The raw values are the server's names: `reader`, `writer`, `owner`.
public enum SpaceRole: String, Sendable, Hashable, CaseIterable {
    /// Reads the space's buckets and lists its members.
    case reader
    /// Reads and writes the space's buckets.
    case writer
    /// Does anything: writes, invites, changes roles, removes members, deletes the space.
    case owner
}
