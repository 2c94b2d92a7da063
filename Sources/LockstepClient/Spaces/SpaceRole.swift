/// What a member may do in a ``Space``.
///
/// | right | reader | writer | owner |
/// |---|---|---|---|
/// | read the space's buckets, receive their changes, list the members, leave | yes | yes | yes |
/// | write the space's buckets | | yes | yes |
/// | invite, change roles, remove members, delete the space | | | yes |
public enum SpaceRole: String, Sendable, Hashable, CaseIterable {
    case reader
    case writer
    case owner
}
