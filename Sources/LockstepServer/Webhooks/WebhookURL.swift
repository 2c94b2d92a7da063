import Foundation

/// An endpoint's URL, checked: `http` or `https`, a host, no credentials, no fragment.
public struct WebhookURL: Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public let isSecure: Bool
    public let host: String
    public let port: Int
    /// The path and query, as the request line carries them (`/` at least).
    public let target: String

    /// The longest URL an endpoint may have.
    public static let maximumLength = 2048

    /// Parses `text`, or throws a message saying what is wrong with it.
    public init(_ text: String) throws(WebhookURLError) {
        guard text.utf8.count <= Self.maximumLength else { throw WebhookURLError("a webhook URL may have at most \(Self.maximumLength) bytes") }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw WebhookURLError("\(text) is not a URL")
        }
        guard scheme == "http" || scheme == "https" else { throw WebhookURLError("a webhook URL must be http:// or https://, not \(scheme)://") }
        guard var host = components.host, !host.isEmpty else { throw WebhookURLError("\(text) names no host") }
        guard components.user == nil, components.password == nil else {
            throw WebhookURLError("a webhook URL may not carry credentials: requests are signed instead (verify the webhook-signature)")
        }
        guard components.fragment == nil else { throw WebhookURLError("a webhook URL may not have a fragment (#…)") }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.text = text
        isSecure = scheme == "https"
        self.host = host.lowercased()
        port = components.port ?? (isSecure ? 443 : 80)
        guard (1...65535).contains(port) else { throw WebhookURLError("\(port) is not a port") }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        target = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    public var description: String { text }

    /// The `Host` header: the host, and the port when it is not the scheme's.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }
}

/// What is wrong with a webhook URL.
public struct WebhookURLError: Error, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
