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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let pipe = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let reader = Task { try await onOwnThread { pipe.fileHandleForReading.readDataToEndOfFile() } }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let data = try await reader.value
        try await onOwnThread { process.waitUntilExit() }
        return Result(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// Whether a Python module can be imported.
    /// Blocks its thread, briefly: it runs once, while the tests are being planned.
    static func hasPythonModule(_ name: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import \(name)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// The repository's root, found from this file's path.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
