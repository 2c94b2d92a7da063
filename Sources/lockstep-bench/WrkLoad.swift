import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// HTTP load from `wrk`, a standard generator written in C, in a process of its own: the
/// figure it gives is the server's, and its own CPU is measured beside it, so a run in which the
/// generator was the limit says so instead of passing for the server's speed.
///
/// `HTTPLoad`, the generator in this process, spends a thread per connection and a copy of
/// every response; on two cores it took CPU the servers needed, and a ratio against nginx
/// measured with it was the generator's (issue 52: 0.65× with it, 0.23× under `wrk`).
struct WrkLoad {
    /// What one run printed, and what it cost.
    struct Result {
        var requestsPerSecond: Double
        var requests: Int
        /// Responses other than 2xx and 3xx, and socket errors.
        var failures: Int
        /// Milliseconds.
        var p50: Double
        var p99: Double
        var seconds: Double
        /// The generator's own CPU (user and system), in seconds.
        var generatorCPU: Double

        /// Cores the generator kept busy on average.
        var generatorCores: Double { generatorCPU / max(seconds, 1e-9) }
        /// Whether the generator used more than half a core: then the figure may be its, not the server's.
        var isGeneratorBound: Bool { generatorCores > WrkLoad.generatorBoundCores }
    }

    /// Above this many cores of its own, a generator may be what limits the figure it prints.
    static let generatorBoundCores = 0.5

    var binary = "/usr/bin/wrk"
    var threads = 1
    var connections: Int
    var seconds: Double

    /// Loads `url` for ``seconds`` and reads wrk's report.
    func run(_ url: String) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw WrkError("wrk is not at \(binary): install it (apt-get install wrk) or pass --wrk PATH")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-t\(threads)", "-c\(connections)", "-d\(Int(seconds.rounded(.up)))s", "--latency", url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        // wrk is this process's only child that ends during the run, so the children's CPU
        // (counted once a child is waited for) grows by wrk's alone.
        let before = Self.childrenCPU()
        let started = DispatchTime.now().uptimeNanoseconds
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        guard process.terminationStatus == 0 else { throw WrkError("wrk exited with \(process.terminationStatus): \(text)") }
        var result = try Self.parse(text)
        result.seconds = min(wall, result.seconds > 0 ? result.seconds : wall)
        result.generatorCPU = Self.childrenCPU() - before
        return result
    }

    /// Reads the report `wrk --latency` prints.
    static func parse(_ report: String) throws -> Result {
        var result = Result(requestsPerSecond: 0, requests: 0, failures: 0, p50: 0, p99: 0, seconds: 0, generatorCPU: 0)
        var sawRate = false
        for line in report.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            if line.hasPrefix("Requests/sec:"), words.count == 2, let rate = Double(words[1]) {
                result.requestsPerSecond = rate
                sawRate = true
            } else if words.count == 2, words[0] == "50%" {
                result.p50 = try milliseconds(words[1])
            } else if words.count == 2, words[0] == "99%" {
                result.p99 = try milliseconds(words[1])
            } else if words.count >= 5, words[1] == "requests", words[2] == "in", let count = Int(words[0]) {
                result.requests = count
                result.seconds = try milliseconds(String(words[3].dropLast())) / 1000
            } else if line.hasPrefix("Non-2xx or 3xx responses:"), let count = words.last.flatMap({ Int($0) }) {
                result.failures += count
            } else if line.hasPrefix("Socket errors:") {
                // "Socket errors: connect 0, read 1, write 0, timeout 0"
                result.failures += words.compactMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: ","))) }.reduce(0, +)
            }
        }
        guard sawRate else { throw WrkError("wrk printed no Requests/sec: \(report)") }
        return result
    }

    /// wrk's durations: `812.00us`, `1.23ms`, `2.00s`, `1.00m`.
    private static func milliseconds(_ text: String) throws -> Double {
        for (suffix, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0), ("m", 60_000.0)] where text.hasSuffix(suffix) {
            if let value = Double(text.dropLast(suffix.count)) { return value * scale }
        }
        throw WrkError("wrk printed a duration this does not read: \(text)")
    }

    /// CPU seconds (user and system) of this process's children that have ended and been waited for.
    private static func childrenCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

struct WrkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
