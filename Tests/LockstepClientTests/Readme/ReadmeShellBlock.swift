import ChildProcesses
import Foundation
import Testing

/// A shell block of README.md, for tests that run its commands as a reader would: the same
/// text, read from the README each run, so that the document and the test cannot drift apart.
///
/// A block's assignments (`NAME='value'`) are what a reader fills in with their own values;
/// a test gives its own for each, and runs the block's commands exactly as written after them.
struct ReadmeShellBlock {
    /// The names the block assigns, in order.
    let assignments: [String]
    /// Its other lines, comments and blank lines left out.
    let commands: [String]

    /// The one `sh` block of README.md that contains `text`.
    init(containing text: String) throws {
        let readme = try String(contentsOf: ExternalPaths.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [[String]] = []
        var current: [String]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if current == nil, line == "```sh" {
                current = []
            } else if let block = current, line == "```" {
                blocks.append(block)
                current = nil
            } else {
                current?.append(line)
            }
        }
        let matching = blocks.filter { $0.contains { $0.contains(text) } }
        guard matching.count == 1, let block = matching.first else {
            throw ReadmeError("README.md has \(matching.count) sh blocks containing \(text), not one")
        }
        var assignments: [String] = []
        var commands: [String] = []
        for line in block {
            let code = line.trimmingCharacters(in: .whitespaces)
            if code.isEmpty || code.hasPrefix("#") { continue }
            if let name = Self.assignedName(code) { assignments.append(name) } else { commands.append(line) }
        }
        self.assignments = assignments
        self.commands = commands
    }

    /// The block's one command whose first word is `program`.
    func command(running program: String) throws -> String {
        let matching = commands.filter { $0.split(separator: " ").first.map(String.init) == program }
        guard matching.count == 1, let command = matching.first else {
            throw ReadmeError("the README's block has \(matching.count) \(program) commands, not one: \(commands)")
        }
        return command
    }

    /// Runs `command` with bash in `directory`, after the block's assignments made with
    /// `values` (one for each name the block assigns, no more); its exit status and output.
    func run(_ command: String, with values: [String: String], in directory: String) async throws -> (status: Int32, output: String) {
        guard Set(values.keys) == Set(assignments) else {
            throw ReadmeError("the README's block assigns \(assignments), the test gives \(values.keys.sorted())")
        }
        let script = ["set -euo pipefail", "cd \(Self.quoted(directory))"]
            + assignments.map { "\($0)=\(Self.quoted(values[$0] ?? ""))" } + [command]
        let process = try ChildProcess.spawn("/bin/bash", arguments: ["-c", script.joined(separator: "\n")], output: .captured)
        let (output, status) = try await onOwnThread { (process.readAllOutput(), process.waitUntilExit()) }
        return (status.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// `NAME` of a line `NAME=value…`, or `nil`.
    private static func assignedName(_ line: String) -> String? {
        guard let equals = line.firstIndex(of: "=") else { return nil }
        let name = line[..<equals]
        guard let first = name.first, first.isLetter || first == "_",
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
        else { return nil }
        return String(name)
    }

    /// `text` in single quotes, for bash.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

struct ReadmeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
