/// Why a call on a ``Space`` failed, as the server answered it.
///
/// ```swift
/// do {
///     try await job.leave()
/// } catch SpaceError.lastOwner(_, let message) {
///     print(message)       // make another owner first, or delete the space
/// }
/// ```
public enum SpaceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// There is no space of this name, or the caller is not a member of it: the server answers
    /// both alike, so that nobody learns whether a space they are not in exists.
    case notFound(space: String)
    /// The caller's role lacks the right; the message names it ("… needs the owner right").
    case forbidden(space: String, message: String)
    /// The space's last owner can neither leave, be removed nor become a writer or reader:
    /// make another owner first, or delete the space.
    case lastOwner(space: String, message: String)
    /// ``Space/create()``: another space already has this name.
    case nameTaken(space: String)
    /// ``Space/remove(_:)``: the address is neither a member nor invited.
    case notMember(email: String, space: String)
    /// The request was malformed (a space name that breaks the naming rule, an address that is
    /// not an email address); the message says what was wrong. Nothing changed.
    case invalid(String)

    /// A sentence saying what was refused, fit to show a person.
    public var description: String {
        switch self {
        case .notFound(let space): "there is no space \(space) (or you are not a member of it)"
        case .forbidden(_, let message), .lastOwner(_, let message): message
        case .nameTaken(let space): "the space name \(space) is taken: choose another"
        case .notMember(let email, let space): "\(email) is not a member of space \(space)"
        case .invalid(let message): message
        }
    }
}
