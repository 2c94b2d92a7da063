import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A lean HTTP/1.1 load generator for loopback benchmarks: one thread per keep-alive
/// connection, each sending GETs back to back, so the figure measures the server and not a
/// client library. Both servers of a comparison get the same generator.
enum HTTPLoad {
    struct Result: Sendable {
        var responses = 0
        var failures = 0
        var bytes = 0
        var seconds = 0.0
        /// Microseconds, sorted.
        var latencies: [UInt32] = []

        var perSecond: Double { Double(responses) / seconds }

        func percentile(_ fraction: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            return Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]) / 1000
        }
    }

    /// GETs `path` from `127.0.0.1:port` over `connections` connections for `seconds`, with
    /// `headers` (`Name: value` lines) beside the usual ones.
    static func run(port: Int, path: String, headers: [String] = [], connections: Int, seconds: Double) -> Result {
        let extra = headers.map { $0 + "\r\n" }.joined()
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\(extra)\r\n".utf8)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let totals = Mutex(Result())
        let group = DispatchGroup()
        let started = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<connections {
            group.enter()
            let thread = Thread {
                var own = Result()
                defer {
                    totals.withLock { total in
                        total.responses += own.responses
                        total.failures += own.failures
                        total.bytes += own.bytes
                        total.latencies += own.latencies
                    }
                    group.leave()
                }
                guard let connection = Connection(port: port) else {
                    own.failures += 1
                    return
                }
                defer { connection.close() }
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    let sent = DispatchTime.now().uptimeNanoseconds
                    guard let (status, length) = connection.exchange(request) else {
                        own.failures += 1
                        return
                    }
                    own.latencies.append(UInt32(min(UInt64(UInt32.max), (DispatchTime.now().uptimeNanoseconds - sent) / 1000)))
                    if status == 200 {
                        own.responses += 1
                        own.bytes += length
                    } else {
                        own.failures += 1
                    }
                }
            }
            thread.start()
        }
        group.wait()
        var total = totals.withLock { $0 }
        total.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        total.latencies.sort()
        return total
    }

    /// A blocking keep-alive connection to a loopback port.
    final class Connection {
        private let socket: Int32
        private var buffer = [UInt8](repeating: 0, count: 256 * 1024)

        init?(port: Int) {
            socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { return nil }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var noDelay: Int32 = 1
            setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Glibc.close(socket)
                return nil
            }
        }

        func close() { Glibc.close(socket) }

        /// Sends one request and reads its whole response: the status and the body's length.
        /// Requests are not pipelined, so nothing of the next response can arrive with this one.
        func exchange(_ request: [UInt8]) -> (Int, Int)? {
            guard request.withUnsafeBytes({ Glibc.send(socket, $0.baseAddress, $0.count, 0) }) == request.count else { return nil }
            var head: [UInt8] = []
            var headEnd: Int?
            while headEnd == nil {
                headEnd = Self.find([13, 10, 13, 10], in: head).map { $0 + 4 }
                if headEnd != nil { break }
                guard let chunk = receive() else { return nil }
                head += chunk
            }
            let header = String(decoding: head[0..<headEnd!], as: UTF8.self)
            let lines = header.split(separator: "\r\n")
            guard let statusLine = lines.first, let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
            let length = lines.dropFirst().compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
            var body = head.count - headEnd!
            while body < length {
                let count = buffer.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, min($0.count, length - body), 0) }
                guard count > 0 else { return nil }
                body += count
            }
            return (status, length)
        }

        private func receive() -> [UInt8]? {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            return Array(buffer[0..<count])
        }

        static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
            guard haystack.count >= needle.count else { return nil }
            for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
                if Array(haystack[start..<start + needle.count]) == needle { return start }
            }
            return nil
        }
    }
}
