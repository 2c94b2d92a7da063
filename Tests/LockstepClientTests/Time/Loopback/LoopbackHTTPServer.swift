#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@testable import lockstep
@testable import lockstep_bench

/// A minimal HTTP/1.1 server on 127.0.0.1, for exercising the HTTP transports end to end
/// without the Lockstep server: it answers each request (GET or HEAD, no body) with what
/// `respond` returns and keeps connections alive, as a real server would for keep-alive clients.
final class LoopbackHTTPServer: Sendable {
    struct Response: Sendable {
        var status = 200
        var headers: [(String, String)] = []
        var body = ""
    }

    let port: UInt16
    private let listener: Int32

    /// - Parameter respond: Given the request line (`GET /time?t1=5 HTTP/1.1`), the response.
    init(respond: @escaping @Sendable (String) -> Response) throws {
        let (listener, port) = try BenchProcesses.loopbackSocket(listeningWith: 8)
        self.listener = listener
        self.port = port
        Thread.detachNewThread {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                Thread.detachNewThread { Self.serve(connection, respond: respond) }
            }
        }
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// Stops accepting connections.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func serve(_ connection: Int32, respond: (String) -> Response) {
        defer { close(connection) }
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            while let end = pending.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                pending.removeSubrange(..<end.upperBound)
                let requestLine = head.split(separator: "\r\n").first.map(String.init) ?? ""
                let reply = Data(render(respond(requestLine), bodyless: requestLine.hasPrefix("HEAD")).utf8)
                _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
            }
            let received = recv(connection, &buffer, buffer.count, 0)
            guard received > 0 else { return }
            pending.append(contentsOf: buffer[..<received])
        }
    }

    private static func render(_ response: Response, bodyless: Bool) -> String {
        let headers = response.headers + [("Content-Length", "\(bodyless ? 0 : response.body.utf8.count)")]
        return "HTTP/1.1 \(response.status) Status\r\n"
            + headers.map { "\($0.0): \($0.1)\r\n" }.joined()
            + "\r\n" + (bodyless ? "" : response.body)
    }
}
