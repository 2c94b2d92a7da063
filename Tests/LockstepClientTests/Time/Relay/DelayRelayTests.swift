#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CommandLineSupport
import Foundation
@testable import lockstep
@testable import lockstep_bench
import LockstepClient
import Testing

/// The benchmark's delay relay: each direction is held up by its own model, and neither reorders.
@Suite struct DelayRelayTests {
    @Test func aChunkNeverOvertakesTheOneAheadOfIt() {
        var schedule = ReleaseSchedule()
        let gap = 10 * ReleaseSchedule.burstGap
        #expect(schedule.release(arrival: 0) { 50 * gap } == 50 * gap)
        // Drawn shorter than the chunk ahead: it leaves right after that one.
        #expect(schedule.release(arrival: gap) { 5 * gap } == 50 * gap)
        #expect(schedule.release(arrival: 20 * gap) { 40 * gap } == 60 * gap)
        #expect(schedule.release(arrival: 100 * gap) { 0 } == 100 * gap)
    }

    @Test func chunksOfOneMessageShareItsDelay() {
        var schedule = ReleaseSchedule()
        var draws = 0
        func draw(_ delay: Int64) -> () -> Int64 { { draws += 1; return delay } }
        #expect(schedule.release(arrival: 0, drawDelay: draw(30_000_000)) == 30_000_000)
        // Close behind: the same message, the same delay, no new draw.
        #expect(schedule.release(arrival: 400_000, drawDelay: draw(90_000_000)) == 30_400_000)
        #expect(schedule.release(arrival: 800_000, drawDelay: draw(90_000_000)) == 30_800_000)
        #expect(draws == 1)
        // After a pause: a new message with its own draw.
        #expect(schedule.release(arrival: 50_000_000, drawDelay: draw(20_000_000)) == 70_000_000)
        #expect(draws == 2)
    }

    @Test(arguments: [(up: 30.0, down: 5.0), (up: 5.0, down: 30.0)])
    func delaysEachDirectionByItsOwnModel(up: Double, down: Double) async throws {
        let offset: Int64 = 1_234_567_000
        let server = try await EmbeddedServer.start(clockOffset: offset)
        let link = LinkModel(name: "fixed", up: .fixed(milliseconds: up), down: .fixed(milliseconds: down))
        let relay = try await DelayRelay.start(targetPort: server.port, link: link)
        let transport = HTTPClockExchangeTransport(serverURL: URL(string: "http://127.0.0.1:\(relay.port)/")!)
        let time = ContinuousTimeSource()
        for _ in 0..<3 {
            let t1 = time.now()
            let stamps = try await transport.exchange(t1: t1)
            let t4 = time.now()
            // Client and server read this machine's clocks, so each leg can be timed on its own.
            let serverMinusLocal = WallClock.offsetFromMonotonic() + offset
            let upLeg = stamps.received - serverMinusLocal - t1
            let downLeg = t4 - (stamps.sent - serverMinusLocal)
            #expect(upLeg >= Int64(up * 1e6), "up \(upLeg) ns")
            #expect(downLeg >= Int64(down * 1e6), "down \(downLeg) ns")
        }
        try await relay.stop()
        await server.stop()
    }

    @Test func keepsEachDirectionInOrder() async throws {
        // Numbered requests sent 3 ms apart (each its own message), each held for a random 0–20 ms or so each
        // way: without ordering, later ones would often overtake earlier ones.
        let server = try LoopbackHTTPServer { requestLine in
            let path = requestLine.split(separator: " ").dropFirst().first ?? ""
            return .init(body: "<\(path.dropFirst())>")
        }
        defer { server.stop() }
        let link = LinkModel(
            name: "scrambling",
            up: .queueing(floorMilliseconds: 0, meanWaitMilliseconds: 5),
            down: .queueing(floorMilliseconds: 0, meanWaitMilliseconds: 5))
        let relay = try await DelayRelay.start(targetPort: Int(server.port), link: link)
        let count = 30
        let reply = try await onOwnThread {
            try RawTCPClient.pipeline(
                port: UInt16(relay.port),
                requests: (0..<count).map { "GET /\($0) HTTP/1.1\r\nHost: relay\r\n\r\n" },
                until: "<\(count - 1)>")
        }
        let numbers = reply.split(separator: "<").dropFirst().compactMap { Int($0.prefix { $0 != ">" }) }
        #expect(numbers == Array(0..<count))
        try await relay.stop()
    }
}

/// A blocking TCP client that sends each request in its own segment, 3 ms apart.
private enum RawTCPClient {
    static func pipeline(port: UInt16, requests: [String], until marker: String) throws -> String {
        #if canImport(Glibc)
        let connection = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let connection = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(connection) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(connection, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED) }
        var noDelay: Int32 = 1
        setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var patience = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &patience, socklen_t(MemoryLayout<timeval>.size))
        for request in requests {
            let bytes = Array(request.utf8)
            guard send(connection, bytes, bytes.count, 0) == bytes.count else { throw POSIXError(.EPIPE) }
            usleep(3_000)
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: received, as: UTF8.self).contains(marker) {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
