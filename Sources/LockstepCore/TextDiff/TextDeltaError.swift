/// Why a delta could not be read against a text.
///
/// A delta comes from the network, so every way it can be wrong is an error, never a crash.
/// The ``description`` says what was wrong in words, for logs and error replies.
public struct TextDeltaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong with the delta.
    public enum Reason: Sendable, Equatable {
        /// A token starts with something other than `=`, `-` or `+`.
        case unknownOperation(token: String)
        /// The count after `=` or `-` is not a non-negative decimal integer.
        case invalidCount(token: String)
        /// Inserted text has a `%` that is not followed by two hex digits.
        case invalidEscape(token: String)
        /// Inserted text decodes to bytes that are not valid UTF-8.
        case invalidUTF8(token: String)
        /// The counts of `=` and `-` tokens add up to a different length than the text's.
        case lengthMismatch(deltaLength: Int, sourceLength: Int)
        /// A count ends between the two UTF-16 halves of a character outside the Basic
        /// Multilingual Plane (an emoji, say), at this UTF-16 offset in the text.
        case splitsSurrogatePair(utf16Offset: Int)
    }

    /// What was wrong with the delta.
    public let reason: Reason

    /// An error for the given reason.
    public init(_ reason: Reason) {
        self.reason = reason
    }

    /// What was wrong, in words, such as "delta length 5 does not equal source text length 2".
    public var description: String {
        switch reason {
        case .unknownOperation(let token):
            "invalid delta operation in token \(token.debugDescription): expected =, - or +"
        case .invalidCount(let token):
            "invalid count in delta token \(token.debugDescription): expected a non-negative integer"
        case .invalidEscape(let token):
            "invalid escape in delta token \(token.debugDescription): expected % and two hex digits"
        case .invalidUTF8(let token):
            "delta token \(token.debugDescription) decodes to invalid UTF-8"
        case .lengthMismatch(let deltaLength, let sourceLength):
            "delta length \(deltaLength) does not equal source text length \(sourceLength)"
        case .splitsSurrogatePair(let offset):
            "delta splits a surrogate pair of the source text at UTF-16 offset \(offset)"
        }
    }
}
