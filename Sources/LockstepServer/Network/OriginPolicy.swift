import Foundation

/// Which web pages of other sites may use the server: those of the origins given to
/// `--allowed-origin` (the HTTP API, read through CORS, and the streaming socket) and to
/// `--allowed-admin-origin` (the same, and the app's admin token too).
///
/// A browser names the page behind each of its requests in `Origin`. Pages of the server's
/// own origin (the console) need no listing, and native clients send no `Origin` (or, over the
/// socket, the socket's own `ws:` URL): neither is concerned. Any other page gets no CORS headers, so its script cannot read an answer; cannot
/// open the socket (403), which CORS does not guard; and is never served for the admin token.
/// None is listed by default.
///
/// `lockstep serve --allowed-origin https://portal.example.com` (repeatable), or
/// `LOCKSTEP_ALLOWED_ORIGINS="https://portal.example.com https://office.example.com"`.
public struct OriginPolicy: Sendable, Hashable {
    /// Origins whose pages may call the API and open the socket, as browsers write them:
    /// `https://portal.example.com`, `http://127.0.0.1:8081`.
    public private(set) var allowed: Set<String> = []
    /// Origins whose pages may present the admin token as well; each is in ``allowed`` too.
    public private(set) var allowedForAdmin: Set<String> = []

    /// No page of another origin allowed: the server as it was before origins were listed.
    public init() {}

    /// Throws naming the first entry that is not an origin (`scheme://host[:port]`, http or
    /// https, nothing after the host).
    public init(allowing origins: [String], admin adminOrigins: [String] = []) throws(OriginError) {
        var admin: Set<String> = []
        for entry in adminOrigins { admin.insert(try Self.origin(listed: entry)) }
        var allowed = admin
        for entry in origins { allowed.insert(try Self.origin(listed: entry)) }
        self.allowed = allowed
        self.allowedForAdmin = admin
    }

    /// Who is behind a request, judged by its `Origin` and the host it was sent to (`Host`).
    public enum Caller: Sendable, Equatable {
        /// No `Origin`: a native client, a script, or a browser's own navigation.
        case native
        /// A page of the server's own origin: the console.
        case sameOrigin
        /// A page of a listed origin.
        case allowed(String)
        /// A page of any other origin (or `null`: a sandboxed frame, a file).
        case foreign(String)
    }

    /// Judges a request by its `Origin` headers (`origins`: a browser sends one at most) and
    /// its `Host`.
    ///
    /// An origin of the `ws:` or `wss:` scheme is no page's: WebSocket libraries name the
    /// socket's own URL so (hummingbird's WSClient, which the Swift SDK and `lockstep tail` use,
    /// sends `Origin: ws://host`), and no browser does. Such a caller is native.
    public func caller(origins: [String], host: String?) -> Caller {
        let pages = origins.filter { origin in
            let scheme = origin.prefix { $0 != ":" }.lowercased()
            return scheme != "ws" && scheme != "wss"
        }
        return caller(origin: pages.first, host: host)
    }

    public func caller(origin: String?, host: String?) -> Caller {
        guard let origin, !origin.isEmpty else { return .native }
        guard let page = Self.parse(origin) else { return .foreign(origin) }
        if let host, let (name, port) = Self.split(host: host), name == page.host, (port ?? page.defaultPort) == page.port {
            return .sameOrigin
        }
        return allowed.contains(page.text) ? .allowed(page.text) : .foreign(page.text)
    }

    /// Whether a page of `caller` may present the app's admin token.
    public func admitsAdminToken(from caller: Caller) -> Bool {
        switch caller {
        case .native, .sameOrigin: true
        case .allowed(let origin): allowedForAdmin.contains(origin)
        case .foreign: false
        }
    }

    /// Why the admin token of a page of `caller` is refused, or `nil` when it is not.
    public func adminTokenRefusal(from caller: Caller) -> String? {
        guard !admitsAdminToken(from: caller) else { return nil }
        let origin = switch caller {
        case .allowed(let origin), .foreign(let origin): origin
        case .native, .sameOrigin: ""
        }
        return "the admin token is not accepted from pages of \(origin): list the origin with lockstep serve --allowed-admin-origin"
    }

    /// Why the socket of a page of `caller` is refused, or `nil` when it may open.
    public func socketRefusal(from caller: Caller) -> String? {
        guard case .foreign(let origin) = caller else { return nil }
        return "pages of \(origin) may not open this server's socket: list the origin with lockstep serve --allowed-origin"
    }

    // MARK: Origins

    private struct Origin {
        var scheme: String
        var host: String
        var port: Int
        var defaultPort: Int { scheme == "https" ? 443 : 80 }
        /// As a browser writes it: no default port.
        var text: String { "\(scheme)://\(host)" + (port == defaultPort ? "" : ":\(port)") }
    }

    private static func origin(listed entry: String) throws(OriginError) -> String {
        guard let origin = parse(entry) else { throw OriginError(entry: entry) }
        return origin.text
    }

    /// `scheme://host[:port]` with an optional `/`, and nothing else.
    private static func parse(_ text: String) -> Origin? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host?.lowercased(), !host.isEmpty,
            components.user == nil, components.password == nil, components.query == nil, components.fragment == nil,
            components.path.isEmpty || components.path == "/"
        else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let origin = Origin(scheme: scheme, host: bracketed, port: 0)
        return Origin(scheme: scheme, host: bracketed, port: components.port ?? origin.defaultPort)
    }

    /// The name and port of a `Host` header: `example.com`, `example.com:8080`, `[::1]:8080`.
    private static func split(host: String) -> (name: String, port: Int?)? {
        let host = host.lowercased()
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let name = String(host[...close])
            let rest = host[host.index(after: close)...]
            if rest.isEmpty { return (name, nil) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()) else { return nil }
            return (name, port)
        }
        guard let colon = host.lastIndex(of: ":") else { return (host, nil) }
        guard let port = Int(host[host.index(after: colon)...]) else { return nil }
        return (String(host[..<colon]), port)
    }
}

/// An `--allowed-origin` entry that is not an origin.
public struct OriginError: Error, CustomStringConvertible {
    public var entry: String
    public var description: String {
        "allowed origin \"\(entry)\" is not an origin such as https://portal.example.com (a scheme, http or https, a host and an optional port; no path)"
    }
}
