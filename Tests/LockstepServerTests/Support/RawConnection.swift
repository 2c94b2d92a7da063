#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A TCP connection to a test server that speaks raw bytes, from a chosen source address:
/// on Linux every address of 127.0.0.0/8 is this machine, so one test can be many callers.
///
/// What HTTP clients will not do is what these tests need: send half a header, a header of
/// 90 KB, a method nobody knows, or hold a connection open and say nothing.
final class RawConnection: Sendable {
    private let descriptor: Int32
    private let isOpen = Atomic<Bool>(true)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Connects to 127.0.0.1:`port` from `source` (an address of 127.0.0.0/8).
    static func open(port: Int, from source: String = "127.0.0.1") throws -> RawConnection {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawConnectionError.failed("socket", errno) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        } }
        guard bound == 0, connected == 0 else {
            let failure = errno
            Glibc.close(descriptor)
            throw RawConnectionError.failed(bound != 0 ? "bind" : "connect", failure)
        }
        return RawConnection(descriptor: descriptor)
    }

    /// Sends `text` as it is; `false` if the server had closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        send(bytes: Array(text.utf8))
    }

    /// Sends `bytes` as they are; `false` if the server had closed the connection.
    @discardableResult
    func send(bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard result > 0 else { return false }
            sent += result
        }
        return true
    }

    /// Everything the server sends until it closes the connection, or until `limit` passes
    /// (and as long again as `stalls` finds the test process's pool stalled meanwhile);
    /// `closed` says which, and `after` how long it took.
    func receiveUntilClosed(within limit: Duration, allowingFor stalls: PoolStallProbe? = nil) async throws
        -> (text: String, closed: Bool, after: Duration)
    {
        try await receive(within: limit, allowingFor: stalls) { _ in false }
    }

    /// What the server sends until the text received so far contains `marker`, it closes the
    /// connection, or `limit` passes.
    func receive(until marker: String, within limit: Duration) async throws -> (text: String, closed: Bool, after: Duration) {
        try await receive(within: limit) { $0.contains(marker) }
    }

    private func receive(
        within limit: Duration, allowingFor stalls: PoolStallProbe? = nil, until isEnough: @escaping @Sendable (String) -> Bool
    ) async throws -> (text: String, closed: Bool, after: Duration) {
        let (bytes, closed, after) = try await receiveBytes(within: limit, allowingFor: stalls) {
            isEnough(String(decoding: $0, as: UTF8.self))
        }
        return (String(decoding: bytes, as: UTF8.self), closed, after)
    }

    /// The bytes the server sends until `isEnough` says so of all received, it closes the
    /// connection, or `limit` passes, extended by the time `stalls` finds the test process's
    /// pool stalled meanwhile (the in-process server could not run then either). `after` is
    /// when the last of them arrived (or the close).
    func receiveBytes(
        within limit: Duration, allowingFor stalls: PoolStallProbe? = nil, until isEnough: @escaping @Sendable ([UInt8]) -> Bool
    ) async throws -> (bytes: [UInt8], closed: Bool, after: Duration) {
        let descriptor = descriptor
        return try await onOwnThread {
            let started = ContinuousClock.now
            var received: [UInt8] = []
            var lastArrival = Duration.zero
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let left = limit + (stalls?.stalledSoFar ?? .zero) - (ContinuousClock.now - started)
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                // At the deadline, one look without waiting: what is already here still counts.
                let milliseconds = left > .zero
                    ? Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)) : 0
                guard poll(&poller, 1, milliseconds) > 0 else {
                    if left > .zero { continue }
                    return (received, false, lastArrival)
                }
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                lastArrival = ContinuousClock.now - started
                if count <= 0 { return (received, true, lastArrival) }
                received += buffer[0..<count]
                if isEnough(received) { return (received, false, lastArrival) }
            }
        }
    }

    /// Closes this side; the first call only.
    func close() {
        if isOpen.exchange(false, ordering: .relaxed) { Glibc.close(descriptor) }
    }

    deinit {
        close()
    }
}

enum RawConnectionError: Error {
    case failed(String, Int32)
}

/// The status line's code of a raw HTTP response; `nil` when there is none.
func httpStatus(_ response: String) -> Int? {
    guard response.hasPrefix("HTTP/1.1 ") else { return nil }
    return Int(response.dropFirst(9).prefix(3))
}
