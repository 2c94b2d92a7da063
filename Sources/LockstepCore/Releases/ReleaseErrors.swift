/// A window or key that is not what it claims to be: a bad digest, a key off its chain, a box
/// that does not open, or an entry that changed since an earlier window.
public struct ReleaseVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// A window or key document that does not have the shape of the format.
public struct ReleaseFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
