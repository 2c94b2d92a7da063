import ChildProcesses
import Foundation
import Testing

@Suite("child processes")
struct ChildProcessTests {
    @Test func capturesStandardOutputAndErrorTogetherAndTheExitCode() async throws {
        let child = try ChildProcess.spawn("/bin/sh", arguments: ["-c", "echo out; echo err >&2; exit 3"], output: .captured)
        let output = try await onOwnThread { String(decoding: child.readAllOutput(), as: UTF8.self) }
        #expect(output.split(separator: "\n").sorted() == ["err", "out"])
        #expect(await child.waitForExit() == .exited(3))
    }

    @Test func reportsTheSignalThatKilledIt() async throws {
        let child = try ChildProcess.spawn("/bin/sleep", arguments: ["30"], output: .discarded)
        #expect(child.exitStatus == nil)
        child.send(SIGKILL)
        #expect(await child.waitForExit() == .killed(signal: SIGKILL))
        #expect(child.exitStatus == .killed(signal: SIGKILL))
    }

    @Test func addsVariablesToThisProcesssEnvironment() async throws {
        let child = try ChildProcess.spawn("/bin/sh", arguments: ["-c", "echo \"$ADDED $PATH\""], environment: ["ADDED": "yes"], output: .captured)
        let output = try await onOwnThread { String(decoding: child.readAllOutput(), as: UTF8.self) }
        #expect(output == "yes \(ProcessInfo.processInfo.environment["PATH"] ?? "")\n")
        #expect(await child.waitForExit() == .exited(0))
    }

    /// Foundation's `Process.run()` crashed here: it over-reads the entries of `/proc/self/fd`,
    /// and a large descriptor table makes the over-read reach an unmapped page.
    @Test func startsManyChildrenWhileManyDescriptorsAreOpen() async throws {
        var descriptors = [Int32](repeating: -1, count: 300)
        for index in stride(from: 0, to: descriptors.count, by: 2) {
            try #require(descriptors.withUnsafeMutableBufferPointer { pipe($0.baseAddress! + index) } == 0)
        }
        defer { for descriptor in descriptors { close(descriptor) } }
        let statuses = try await onOwnThread {
            try (0..<200).map { _ in try ChildProcess.spawn("/bin/true", output: .captured).waitUntilExit() }
        }
        #expect(statuses == Array(repeating: .exited(0), count: 200))
    }

    /// Pipes made with `pipe()` are not close-on-exec, and neither are NIO's sockets.
    @Test func inheritsNoDescriptorAboveStandardError() async throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        let child = try ChildProcess.spawn("/bin/sh", arguments: ["-c", "test ! -e /proc/self/fd/\(ends[1])"], output: .discarded)
        #expect(await child.waitForExit() == .exited(0))
    }

    @Test func refusesAMissingProgram() {
        #expect(throws: ChildProcess.SpawnError.self) { try ChildProcess.spawn("/nonexistent/program", output: .discarded) }
    }
}
