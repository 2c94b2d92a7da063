public import ArgumentParser
import Foundation

/// Where a server's streaming socket is, for the tools that open one (`lockstep tail`, the
/// benchmarks).
public enum StreamingSocketURL {
    /// `ws(s)://host/sock/1/{app}/websocket` for a server's `http(s)://host` URL.
    public static func make(base: String, app: String) throws(ValidationError) -> String {
        guard var components = URLComponents(string: base), let scheme = components.scheme else {
            throw ValidationError("\(base) is not a URL such as http://127.0.0.1:8080")
        }
        components.scheme = ["https", "wss"].contains(scheme) ? "wss" : "ws"
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        components.path = path + "/sock/1/\(app)/websocket"
        guard let url = components.string else { throw ValidationError("\(base) is not a URL such as http://127.0.0.1:8080") }
        return url
    }
}
