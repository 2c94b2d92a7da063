import ArgumentParser
import AsyncHTTPClient
import ChildProcesses
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The servers a benchmark starts on loopback, each in its own process so that its CPU time
/// can be read apart from the load generator's.
enum BenchProcesses {
    struct Running {
        let process: ChildProcess
        let port: Int
    }

    /// `lockstep serve` from this very binary, with a generated store of `slots` slots.
    ///
    /// The per-caller HTTP rate limit is off: every request of the benchmark comes from
    /// 127.0.0.1, so with it on the figures would measure the limiter's 429s, not the server.
    static func startLockstep(directory: String, slots: Int) throws -> Running {
        let items: [JSONItem] = (0..<200).map { index in
            JSONItem(id: "item-\(index)", weight: 1 + index % 7, name: "Item number \(index)", price: 10 * (index % 50 + 1))
        }
        let configuration = """
            {"stores": [{"id": "main", "slots": \(slots)}],
             "items": [\(items.map(\.text).joined(separator: ",\n  "))]}
            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: directory + "/store.json"))
        let port = try freePort()
        let arguments = [
            "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", directory + "/data",
            "--store-config", directory + "/store.json", "--log-level", "error",
            "--http-requests-per-second", "0", "--max-connections-per-address", "0",
        ]
        let process = try ChildProcess.spawn(
            LockstepBinary.path, arguments: arguments,
            environment: ["LOCKSTEP_STORE_SEED": UUID().uuidString + UUID().uuidString], output: .errorsOnly)
        return Running(process: process, port: port)
    }

    /// nginx serving `directory/html` with the headers Lockstep gives windows.
    static func startNginx(binary: String, directory: String) throws -> Running {
        let port = try freePort()
        let prefix = directory + "/nginx"
        try FileManager.default.createDirectory(atPath: prefix + "/logs", withIntermediateDirectories: true)
        let configuration = """
            worker_processes 2;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/logs/error.log error;
            events { worker_connections 4096; }
            http {
                access_log off;
                sendfile on;
                tcp_nodelay on;
                keepalive_requests 10000000;
                client_body_temp_path \(prefix)/body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    root \(directory)/html;
                    location / {
                        default_type application/json;
                        add_header Cache-Control "public, max-age=600, immutable";
                    }
                }
            }
            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: prefix + "/nginx.conf"))
        // nginx's workers read the files as an unprivileged user.
        for path in [directory, directory + "/html"] { chmod(path, 0o755) }
        let process = try ChildProcess.spawn(binary, arguments: ["-p", prefix, "-c", prefix + "/nginx.conf", "-g", "daemon off;"], output: .inherited)
        return Running(process: process, port: port)
    }

    static func waitUntilUp(_ url: String, client: HTTPClient) async throws {
        for _ in 0..<300 {
            if let response = try? await client.execute(HTTPClientRequest(url: url), timeout: .seconds(1)), response.status == .ok {
                _ = try? await response.body.collect(upTo: 64 * 1024 * 1024)
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ValidationError("\(url) did not come up within 30 s")
    }

    /// A port nothing listens on now.
    static func freePort() throws -> Int {
        guard let (socket, port) = try? loopbackSocket(listeningWith: nil) else { throw ValidationError("no free port on 127.0.0.1") }
        Glibc.close(socket)
        return Int(port)
    }

    /// A TCP socket bound to 127.0.0.1 on a port the system picks, and that port; listening,
    /// with `backlog`, unless it is `nil`. The caller closes it.
    static func loopbackSocket(listeningWith backlog: Int32?) throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                Glibc.bind(descriptor, address, length) == 0 && (backlog.map { Glibc.listen(descriptor, $0) == 0 } ?? true)
                    && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL)
            Glibc.close(descriptor)
            throw error
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    private struct JSONItem {
        var id: String
        var weight: Int
        var name: String
        var price: Int
        var text: String { #"{"id": "\#(id)", "weight": \#(weight), "data": {"name": "\#(name)", "price": \#(price)}}"# }
    }
}

/// CPU time (user + system) used by some processes and their children's threads, from /proc.
struct CPUTime {
    let pids: [Int32]
    let start: Double

    init(including pids: [Int32]) {
        self.pids = pids
        start = Self.seconds(Self.family(pids))
    }

    /// Seconds of CPU since this was made.
    func elapsed() -> Double {
        Self.seconds(Self.family(pids)) - start
    }

    /// The processes and their direct children (nginx's workers).
    private static func family(_ pids: [Int32]) -> [Int32] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
        return pids + all.filter { pid in statFields(pid).map { pids.contains(Int32($0[1]) ?? -1) } ?? false }
    }

    private static func seconds(_ pids: [Int32]) -> Double {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return pids.compactMap(statFields).reduce(0) { total, fields in total + (Double(fields[11]) ?? 0) / ticks + (Double(fields[12]) ?? 0) / ticks }
    }

    /// The fields of /proc/PID/stat after the command name: state, ppid, … (utime is [11]).
    private static func statFields(_ pid: Int32) -> [String]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ").map(String.init)
    }
}

/// This process's own CPU time (every thread, user and system), to the microsecond: what a load
/// generator spends beside the server it measures.
enum ProcessCPU {
    static func now() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
