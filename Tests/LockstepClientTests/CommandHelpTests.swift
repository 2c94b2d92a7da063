import Foundation
import Testing

/// `--help` on any command of the built `lockstep` prints that command's own help. A required
/// option on a parent command breaks this: the parent fails to parse before the subcommand's
/// `--help` is seen, and the parent's help comes out instead (issue 20).
@Suite("lockstep --help")
struct CommandHelpTests {
    @Test("every command's --help, found by walking the tree from the root, prints its own usage line")
    func everyCommandPrintsItsOwnHelp() async throws {
        var pending: [[String]] = [[]]
        var checked: [String] = []
        while let path = pending.popLast() {
            let result = try await LockstepTool.run(path + ["--help"])
            let usage = Self.usageLine(of: result.output)
            let own = Self.names(usage, path)
            #expect(result.status == 0, "lockstep \(path.joined(separator: " ")) --help: \(result.output)")
            #expect(own, "lockstep \(path.joined(separator: " ")) --help printed \(usage ?? result.output)")
            checked.append(path.joined(separator: " "))
            // A parent's help lists the parent's subcommands again: following them would never end.
            if own { pending += Self.subcommands(in: result.output).map { path + [$0] } }
        }
        // The tree as the README lists it, at least: a walk that found nothing would pass too.
        for command in ["client sync", "client attach", "client download", "client history", "spaces invite", "store watch", "tokens revoke", "buckets restore"] {
            #expect(checked.contains(command), "\(command) was not reached from the root's help: \(checked)")
        }
        // The load generators are `lockstep-bench`'s, not in the tool every user runs.
        #expect(!checked.contains { $0 == "bench" || $0.hasPrefix("bench ") }, "lockstep still lists its benchmarks: \(checked)")
    }

    @Test("a subcommand's --help is its own after its parent's options too, and through `lockstep help`")
    func helpAfterParentOptionsAndThroughHelp() async throws {
        let asked: [(arguments: [String], path: [String])] = [
            (["client", "--store", "/nonexistent", "--url", "http://127.0.0.1:9", "sync", "--help"], ["client", "sync"]),
            (["client", "--token", "t", "attach", "--help"], ["client", "attach"]),
            (["spaces", "--app", "a", "invite", "--help"], ["spaces", "invite"]),
            (["help", "client", "sync"], ["client", "sync"]),
            (["help", "spaces", "invite"], ["spaces", "invite"]),
        ]
        for (arguments, path) in asked {
            let result = try await LockstepTool.run(arguments)
            let usage = Self.usageLine(of: result.output)
            #expect(result.status == 0, "lockstep \(arguments.joined(separator: " ")): \(result.output)")
            #expect(Self.names(usage, path), "lockstep \(arguments.joined(separator: " ")) printed \(usage ?? result.output)")
        }
    }

    /// Usage is for a command line that is wrong. A command that was called right and failed
    /// (a file that does not parse, an object that is not there, a token already revoked, a
    /// store in PostgreSQL) says what went wrong, and nothing about how to call it.
    @Test("a failure that is no mistake of the command line prints its reason and no usage")
    func failuresThatAreNoMistakeOfTheCommandLinePrintNoUsage() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-failures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let notJSON = directory.appendingPathComponent("broken.json").path
        try "{not json".write(toFile: notJSON, atomically: true, encoding: .utf8)
        let store = directory.appendingPathComponent("store").path
        let data = directory.appendingPathComponent("data").path
        let failures: [(arguments: [String], reason: String)] = [
            (["diff", notJSON, notJSON], "broken.json"),
            (["patch", notJSON, directory.appendingPathComponent("missing.json").path], "cannot read"),
            (["client", "--store", store, "--url", "http://127.0.0.1:9", "--app", "a", "--token", "t", "get", "notes", "nothing"], "does not exist"),
            (["tokens", "create", "--app", "no-such-app", "--user", "u@example.com", "--data-dir", data], "no-such-app"),
            (["backup", directory.appendingPathComponent("copy.sqlite").path, "--database-url", "postgres://lockstep@db.internal/lockstep"], "pg_dump"),
        ]
        for (arguments, reason) in failures {
            let result = try await LockstepTool.run(arguments)
            #expect(result.status != 0, "lockstep \(arguments.joined(separator: " ")): \(result.output)")
            #expect(result.output.hasPrefix("Error: ") && result.output.contains(reason), "lockstep \(arguments.joined(separator: " ")): \(result.output)")
            #expect(!result.output.contains("Usage:") && !result.output.contains("--help"), "lockstep \(arguments.joined(separator: " ")): \(result.output)")
        }
    }

    /// The line that says how to call the command whose help this is.
    static func usageLine(of help: String) -> String? {
        help.split(separator: "\n").first { $0.hasPrefix("USAGE: ") }.map(String.init)
    }

    /// Whether `usage` is that of the command at `path`, not of its parent or a sibling: the
    /// path is followed by the end of the line or a space.
    static func names(_ usage: String?, _ path: [String]) -> Bool {
        guard let usage else { return false }
        let command = (["USAGE: lockstep"] + path).joined(separator: " ")
        return usage == command || usage.hasPrefix(command + " ")
    }

    /// The names the help's SUBCOMMANDS section lists (two spaces in; descriptions that wrap
    /// are indented further).
    static func subcommands(in help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "SUBCOMMANDS:") else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.dropFirst(2).split(separator: " ").first.map(String.init)
        }
    }
}
