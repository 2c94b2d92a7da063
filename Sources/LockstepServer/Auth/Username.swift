import Foundation
import LockstepCore

/// A username as a person typed it, checked, with the one form in which names are compared.
///
/// Names that read the same are the same account. `Alice@Example.com`, `alice@example.com`
/// and `alice@example.com` typed with a decomposed character all have one ``canonical`` form,
/// and every comparison uses it: uniqueness when an account is created, the lookup when a
/// user signs in or the admin issues a token, and the key of the password throttle. So an
/// attacker cannot reach one account under many spellings, and nobody can register a name
/// that only looks like somebody else's through case or composition.
///
/// ```swift
/// let name = try Username("Zoë@Example.com")
/// name.display    // "Zoë@Example.com", as the user chose it (in NFC)
/// name.canonical  // "zoë@example.com"
/// ```
///
/// Names are refused (400) when they are empty, longer than 256 bytes, contain a control
/// character (a NUL among them: some layers below would see a different name than this one),
/// a line or paragraph separator, or parse as JSON (streaming clients would mistake the name
/// in `auth:` for an error).
public struct Username: Sendable, Hashable, CustomStringConvertible {
    /// The name as chosen, in Unicode NFC: what the server stores and shows back.
    public let display: String
    /// NFC, lowercased, NFC again: what the server compares.
    public let canonical: String

    /// Checks `raw`; throws an ``AccountError`` (400) saying what is wrong with it.
    public init(_ raw: String) throws(AccountError) {
        let display = raw.precomposedStringWithCanonicalMapping
        guard !display.isEmpty, display.utf8.count <= 256 else {
            throw AccountError(.badRequest, "a username must be 1 to 256 bytes long")
        }
        if let scalar = display.unicodeScalars.first(where: Self.isForbidden) {
            let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw AccountError(.badRequest, "a username may not contain control characters or line breaks (it contains \(code))")
        }
        if (try? JSONValue(parsing: display)) != nil {
            throw AccountError(.badRequest, "a username may not be a JSON value such as a number or true")
        }
        self.display = display
        self.canonical = Self.canonical(display)
    }

    /// The canonical form of any name, valid or not: how stored names are compared with each
    /// other (the startup check for colliding accounts uses it on names stored before it existed).
    ///
    /// Lowercasing runs between two normalizations because it can decompose: `İ` lowercases
    /// to `i` followed by a combining dot.
    public static func canonical(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping.lowercased().precomposedStringWithCanonicalMapping
    }

    public var description: String { display }

    private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
