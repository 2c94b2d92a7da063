import ArgumentParser
import AsyncHTTPClient
import ChildProcesses
import Foundation
import LockstepCore
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// `lockstep-bench blobs`: blob downloads against nginx serving the same file, in the same run;
/// an upload's speed through the server (hash check included); and the server's memory while
/// a large upload goes through. Each server runs in its own process; the downloads come from
/// this one, and the upload from curl.
struct BenchBlobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blobs",
        abstract: "Blob download against nginx serving the same file, upload speed, and server memory during a large upload.")

    @Option(help: "Size of the downloaded blob, in MB.")
    var downloadMegabytes = 10
    @Option(help: "Keep-alive connections downloading at once.")
    var connections = 4
    @Option(help: "Seconds each server is measured.")
    var seconds = 5.0
    @Option(help: "Size of the uploaded blob, in MB.")
    var uploadMegabytes = 1024
    @Option(help: "The nginx binary (Debian: apt-get install nginx).")
    var nginx = "/usr/sbin/nginx"
    @Option(help: "The curl binary, which sends the upload.")
    var curl = "/usr/bin/curl"

    func run() async throws {
        for tool in [nginx, curl] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw ValidationError("\(tool) is not there: install it (apt-get install nginx curl) or pass its path")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-bench-blobs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/html", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lockstep = try startLockstep(directory: directory)
        defer { lockstep.process.send(SIGTERM); _ = lockstep.process.waitUntilExit() }
        let client = HTTPClient.shared
        let base = "http://127.0.0.1:\(lockstep.port)"
        try await BenchProcesses.waitUntilUp(base + "/health", client: client)
        let credentials = try JSONValue(parsing: try String(contentsOfFile: directory + "/data/default-app.json", encoding: .utf8))
        guard let app = credentials["app_id"]?.stringValue, let token = credentials["admin_token"]?.stringValue else {
            throw ValidationError("the server wrote no default app")
        }
        let upload = BlobUploader(base: base, app: app, token: token, curl: curl)

        // Downloads.
        let file = directory + "/html/blob"
        try Self.writeRandomFile(file, megabytes: downloadMegabytes)
        let hash = try Self.hash(file)
        _ = try await upload.send(file, hash: hash)
        let server = try BenchProcesses.startNginx(binary: nginx, directory: directory)
        defer { server.process.send(SIGTERM); _ = server.process.waitUntilExit() }
        try await BenchProcesses.waitUntilUp("http://127.0.0.1:\(server.port)/blob", client: client)
        print("Download of a \(downloadMegabytes) MB blob, \(connections) keep-alive connections, \(seconds) s each:")
        var rates: [String: Double] = [:]
        for (name, port, path, headers, pid) in [
            ("lockstep", lockstep.port, "/1/\(app)/__blobs__/\(hash.hex)", ["X-Simperium-Token: \(token)"], lockstep.process.pid),
            ("nginx", server.port, "/blob", [], server.process.pid),
        ] {
            _ = HTTPLoad.run(port: port, path: path, headers: headers, connections: connections, seconds: 1)
            let cpu = CPUTime(including: [pid])
            let result = HTTPLoad.run(port: port, path: path, headers: headers, connections: connections, seconds: seconds)
            let megabytes = Double(result.bytes) / 1e6 / result.seconds
            rates[name] = megabytes
            print(String(
                format: "  %-9@ %7.0f MB/s  %6.1f downloads/s  p50 %6.1f ms  p99 %6.1f ms  failures %d  server CPU %3.0f %%",
                name, megabytes, result.perSecond, result.percentile(0.5), result.percentile(0.99), result.failures,
                100 * cpu.elapsed() / result.seconds))
        }
        print(String(format: "  lockstep / nginx: %.2f×", (rates["lockstep"] ?? 0) / max(1, rates["nginx"] ?? 1)))

        // One large upload, with the server's memory watched.
        let large = directory + "/large"
        try Self.writeRandomFile(large, megabytes: uploadMegabytes)
        let largeHash = try Self.hash(large)
        let before = Self.residentKilobytes(lockstep.process.pid)
        let peak = ResidentPeak(pid: lockstep.process.pid)
        let watching = Task { await peak.watch() }
        let elapsed = try await upload.send(large, hash: largeHash)
        watching.cancel()
        let highest = await peak.highest
        print("Upload of \(uploadMegabytes) MB in one PATCH (curl from disk, SHA-256 checked by the server):")
        print(String(format: "  %.1f s, %.0f MB/s", elapsed, Double(uploadMegabytes) * 1.048576 / elapsed))
        print(String(format: "  server memory: %.1f MB before, %.1f MB at most during: +%.1f MB", Double(before) / 1024, Double(highest) / 1024,
            Double(highest - before) / 1024))
    }

    private func startLockstep(directory: String) throws -> BenchProcesses.Running {
        let port = try BenchProcesses.freePort()
        let process = try ChildProcess.spawn(
            LockstepBinary.path,
            arguments: [
                "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", directory + "/data", "--log-level", "error",
                "--http-requests-per-second", "0", "--max-connections-per-address", "0", "--blob-quota-bytes", "0",
                "--max-blob-bytes", String(Int64(uploadMegabytes + 1) << 20), "--request-body-timeout-seconds", "0",
            ],
            environment: [:], output: .errorsOnly)
        return BenchProcesses.Running(process: process, port: port)
    }

    static func writeRandomFile(_ path: String, megabytes: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw ValidationError("cannot write \(path)")
        }
        defer { try? handle.close() }
        var generator = SystemRandomNumberGenerator()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<megabytes {
            chunk.withUnsafeMutableBytes { bytes in
                for index in stride(from: 0, to: bytes.count, by: 8) { bytes.storeBytes(of: generator.next() as UInt64, toByteOffset: index, as: UInt64.self) }
            }
            try handle.write(contentsOf: chunk)
        }
        chmod(path, 0o644)
    }

    static func hash(_ path: String) throws -> BlobHash {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ValidationError("cannot read \(path)") }
        defer { try? handle.close() }
        var hasher = BlobHasher()
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty { hasher.update(Array(data)) }
        return hasher.finalize()
    }

    /// The resident memory of a process, in kB.
    static func residentKilobytes(_ pid: Int32) -> Int {
        (ProcessMemory(pid: pid)?.resident ?? 0) / 1024
    }
}

/// The highest resident memory a process reaches while it is watched (every 20 ms).
actor ResidentPeak {
    let pid: Int32
    private(set) var highest = 0

    init(pid: Int32) {
        self.pid = pid
    }

    func watch() async {
        while !Task.isCancelled {
            highest = max(highest, BenchBlobs.residentKilobytes(pid))
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// An upload through the tus API: declared with this process's HTTP client, its bytes sent by
/// curl from disk in one PATCH.
struct BlobUploader {
    let base: String
    let app: String
    let token: String
    let curl: String

    /// Uploads the file and returns the seconds its PATCH took.
    func send(_ path: String, hash: BlobHash) async throws -> Double {
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        let metadata = "sha256 \(Data(hash.hex.utf8).base64EncodedString()),type \(Data("application/octet-stream".utf8).base64EncodedString())"
        let create = try run([
            "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "X-Simperium-Token: \(token)", "-H", "Tus-Resumable: 1.0.0",
            "-H", "Upload-Length: \(size)", "-H", "Upload-Metadata: \(metadata)", "\(base)/1/\(app)/__blobs__",
        ])
        guard create == "201" else { throw ValidationError("creating the upload answered \(create)") }
        let started = DispatchTime.now().uptimeNanoseconds
        let patch = try run([
            "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PATCH", "-H", "X-Simperium-Token: \(token)", "-H", "Tus-Resumable: 1.0.0",
            "-H", "Upload-Offset: 0", "-H", "Content-Type: application/offset+octet-stream", "-H", "Expect:", "--upload-file", path,
            "\(base)/1/\(app)/__blobs__/uploads/\(hash.hex)",
        ])
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        guard patch == "204" else { throw ValidationError("the upload answered \(patch)") }
        return seconds
    }

    private func run(_ arguments: [String]) throws -> String {
        let process = try ChildProcess.spawn(curl, arguments: arguments, environment: [:], output: .captured)
        let output = process.readAllOutput()
        _ = process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }
}
