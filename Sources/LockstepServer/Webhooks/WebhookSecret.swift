import Foundation

/// An endpoint's signing secret, written as Standard Webhooks write them: `whsec_` and the
/// base64 of its bytes (24 random bytes here), which receivers' libraries take as they are.
public struct WebhookSecret: Sendable, Hashable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A fresh secret from the system's secure generator.
    public static func random() -> WebhookSecret {
        var generator = SystemRandomNumberGenerator()
        return WebhookSecret(bytes: (0..<24).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    static let prefix = "whsec_"

    /// `whsec_<base64>`.
    public var text: String { Self.prefix + Data(bytes).base64EncodedString() }

    /// Reads ``text``; `nil` for anything else.
    public init?(text: String) {
        guard text.hasPrefix(Self.prefix), let data = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))), !data.isEmpty
        else { return nil }
        bytes = Array(data)
    }
}

/// The secrets an endpoint's requests are signed with: the current one, and after a rotation
/// the one before it, until its overlap ends, so a receiver can move to the new secret while
/// requests verify with either (each request carries a signature by each).
public struct WebhookSecrets: Sendable, Hashable {
    public var current: WebhookSecret
    public var previous: WebhookSecret?
    /// When the previous secret stops signing (nanoseconds since the Unix epoch).
    public var previousUntil: Int64?

    public init(current: WebhookSecret, previous: WebhookSecret? = nil, previousUntil: Int64? = nil) {
        self.current = current
        self.previous = previous
        self.previousUntil = previousUntil
    }

    /// The secrets that sign a request sent at `now`: the current one first.
    public func signing(at now: Int64) -> [WebhookSecret] {
        guard let previous, let previousUntil, now < previousUntil else { return [current] }
        return [current, previous]
    }

    /// A new current secret; the current one keeps signing for `overlap` nanoseconds more.
    public func rotated(to secret: WebhookSecret, now: Int64, overlap: Int64) -> WebhookSecrets {
        overlap > 0 ? WebhookSecrets(current: secret, previous: current, previousUntil: now + overlap) : WebhookSecrets(current: secret)
    }
}
