import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import lockstep
@testable import lockstep_bench

/// Debian's nginx in a child process, serving `deploy/nginx/lockstep.conf` (the file operators
/// install) in front of the given nodes: only the listening port and the upstream servers are
/// changed, so the test proves the configuration that ships.
final class NginxProxy: Sendable {
    static let executable = "/usr/sbin/nginx"

    let port: Int
    private let tool: ToolProcess
    private let directory: URL

    private init(port: Int, tool: ToolProcess, directory: URL) {
        self.port = port
        self.tool = tool
        self.directory = directory
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Whether nginx can run here; under CI its absence is a failure (`.ci/run` installs it).
    static func requireInstalled() throws {
        guard !FileManager.default.isExecutableFile(atPath: executable) else { return }
        let reason = "nginx is not installed (apt-get install nginx), so the deployment suite did not run"
        if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("\(reason) (and CI is set, where it must be)") }
        try Test.cancel(Comment(rawValue: reason))
    }

    /// Starts nginx in front of `nodes` (their ports) and waits until it answers `/health`.
    static func start(before nodes: [Int]) async throws -> NginxProxy {
        let port = try BenchProcesses.freePort()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let shipped = try String(contentsOf: ExternalPaths.repositoryRoot.appendingPathComponent("deploy/nginx/lockstep.conf"), encoding: .utf8)
        let site = try configure(shipped, port: port, nodes: nodes)
        try site.write(to: directory.appendingPathComponent("lockstep.conf"), atomically: true, encoding: .utf8)
        let temporary = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
            .map { "    \($0)_temp_path \(directory.path)/\($0);" }.joined(separator: "\n")
        let main = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
            \(temporary)
                include \(directory.path)/lockstep.conf;
            }

            """
        try main.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let tool = try ToolProcess.launch(
            at: URL(fileURLWithPath: executable), name: "nginx",
            arguments: ["-p", directory.path, "-c", directory.appendingPathComponent("nginx.conf").path])
        let proxy = NginxProxy(port: port, tool: tool, directory: directory)
        // The pid file too, not only an answer on the port: nginx writes it once it holds its
        // listening socket, and a port free when chosen may have been taken by another test's
        // server since, which answers /health as well.
        let pidFile = directory.appendingPathComponent("nginx.pid").path
        for _ in 0..<400 {
            if FileManager.default.fileExists(atPath: pidFile), await tool.exitStatus(within: .zero) == nil,
                let (data, response) = try? await URLSession.shared.data(from: URL(string: proxy.baseURL + "/health")!),
                (response as? HTTPURLResponse)?.statusCode == 200, !data.isEmpty
            {
                return proxy
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        proxy.stop()
        throw NginxError.didNotStart(tool.transcript + "\n" + log)
    }

    /// The shipped site configuration with this test's port and nodes.
    static func configure(_ shipped: String, port: Int, nodes: [Int]) throws -> String {
        var lines: [String] = []
        var upstreamWritten = false
        for line in shipped.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("server 127.0.0.1:") {
                // The shipped upstream's servers, replaced by this test's nodes (same parameters).
                guard !upstreamWritten else { continue }
                upstreamWritten = true
                let parameters = trimmed.split(separator: " ").dropFirst(2).joined(separator: " ")
                lines += nodes.map { "    server 127.0.0.1:\($0) \(parameters)" }
            } else if trimmed == "listen 80;" {
                lines.append("    listen 127.0.0.1:\(port);")
            } else {
                lines.append(String(line))
            }
        }
        guard upstreamWritten, lines.contains("    listen 127.0.0.1:\(port);") else {
            throw NginxError.unexpectedConfiguration("deploy/nginx/lockstep.conf no longer has `server 127.0.0.1:…` lines and `listen 80;`")
        }
        return lines.joined(separator: "\n")
    }

    func stop() {
        tool.kill()
        try? FileManager.default.removeItem(at: directory)
    }
}

enum NginxError: Error {
    case didNotStart(String)
    case unexpectedConfiguration(String)
}
