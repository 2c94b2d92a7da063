import HTTPTypes

/// The headers of every console response.
enum ConsoleSecurityHeaders {
    /// A strict policy: scripts, styles and images from this server only, no inline script, no
    /// framing, and connections to this server and its own WebSocket origin alone.
    static func fields(host: String?) -> HTTPFields {
        var sockets = ""
        if let host, !host.isEmpty, host.utf8.allSatisfy({ Self.hostBytes.contains($0) }) {
            sockets = " ws://\(host) wss://\(host)"
        }
        return [
            .contentSecurityPolicy: "default-src 'self'; connect-src 'self'\(sockets); img-src 'self' data:; "
                + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("X-Frame-Options")!: "DENY",
        ]
    }

    /// What a Host header may hold to be named in the policy: a name or address and a port.
    private static let hostBytes = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]".utf8)
}
