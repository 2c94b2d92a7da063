import ChildProcesses
import Foundation

/// Runs programs outside Swift (python3, psql, nginx…) for compatibility tests.
enum ExternalTool {
    /// Whether CI is running us: there, a missing tool is a failure, not a reason to skip.
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    struct Result: Sendable {
        var status: Int32
        var output: String
    }

    /// Runs `arguments` (the first is looked up on PATH) to completion, capturing stdout and stderr together.
    static func run(_ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(120)) async throws -> Result {
        let process = try ChildProcess.spawn("/usr/bin/env", arguments: arguments, environment: environment, output: .captured)
        let reader = Task { try await onOwnThread { process.readAllOutput() } }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.send(SIGTERM)
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let output = try await reader.value
        let status = await process.waitForExit()
        return Result(status: status.terminationStatus, output: String(decoding: output, as: UTF8.self))
    }

    /// Whether a Python module can be imported.
    /// Blocks its thread, briefly: it runs once, while the tests are being planned.
    static func hasPythonModule(_ name: String) -> Bool {
        guard let process = try? ChildProcess.spawn("/usr/bin/env", arguments: ["python3", "-c", "import \(name)"], output: .discarded) else {
            return false
        }
        return process.waitUntilExit() == .exited(0)
    }

    /// The repository's root, found from this file's path.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
