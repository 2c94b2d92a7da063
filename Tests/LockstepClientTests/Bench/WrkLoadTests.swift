import Foundation
@testable import lockstep_bench
import Testing

/// `lockstep-bench releases --generator wrk`: the generator is wrk, in a process of its own,
/// and its report and its own CPU are read right, so a comparison can tell the server's limit
/// from the generator's.
@Suite("Benchmarks: wrk as the HTTP load generator")
struct WrkLoadTests {
    /// wrk against a real server: requests counted, none failed, and the generator's own CPU
    /// measured (never zero: wrk spends CPU on every request it sends).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") || ProcessInfo.processInfo.environment["CI"] != nil))
    func wrkLoadsARealServerAndItsOwnCPUIsMeasured() async throws {
        let server = try await ServerProcess.start(["--data-dir", FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-wrk-\(UUID().uuidString)").path])
        defer { server.kill() }
        let result = try WrkLoad(connections: 4, seconds: 1).run(server.baseURL + "/health")
        #expect(result.requests > 0)
        #expect(result.requestsPerSecond > 0)
        #expect(result.failures == 0)
        #expect(result.p50 > 0 && result.p99 >= result.p50)
        #expect(result.generatorCPU > 0, "wrk's CPU was not measured")
        #expect(result.generatorCores < 2.01)
    }

    /// Failures are what wrk reports as non-2xx/3xx answers and socket errors; its durations
    /// come in µs, ms and s.
    @Test func aReportWithFailuresIsReadWhole() throws {
        let report = """
            Running 5s test @ http://127.0.0.1:8080/releases/main/windows/1796000000000
              1 threads and 32 connections
              Thread Stats   Avg      Stdev     Max   +/- Stdev
                Latency     1.27ms  402.11us   9.87ms   88.20%
                Req/Sec    25.41k     1.02k   27.10k    72.00%
              Latency Distribution
                 50%  812.00us
                 75%    1.40ms
                 90%    1.80ms
                 99%    2.05s
              126433 requests in 5.00s, 12.47GB read
              Socket errors: connect 0, read 3, write 0, timeout 2
              Non-2xx or 3xx responses: 7
            Requests/sec:  25286.60
            Transfer/sec:      2.49GB
            """
        let result = try WrkLoad.parse(report)
        #expect(result.requests == 126_433)
        #expect(result.requestsPerSecond == 25_286.60)
        #expect(result.failures == 12)
        #expect(result.p50 == 0.812)
        #expect(result.p99 == 2050)
        #expect(result.seconds == 5)
        #expect(throws: WrkError.self) { try WrkLoad.parse("unable to connect to 127.0.0.1:1 Connection refused") }
    }
}
