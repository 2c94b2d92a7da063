import ChildProcesses
import Foundation
import Synchronization

/// One of the package's programs (`lockstep`, `tictactoe`) running beside the tests, its output
/// (stdout and stderr) read line by line as it comes.
final class ToolProcess: Sendable {
    let name: String
    private let process: ChildProcess
    private let lines = Mutex<(seen: [String], read: Int)>(([], 0))

    private init(name: String, process: ChildProcess) {
        self.name = name
        self.process = process
    }

    /// Starts the built program `executable` (beside `lockstep` in `.build`); `name` is for messages.
    static func launch(_ executable: String, name: String, arguments: [String]) throws -> ToolProcess {
        try launch(at: LockstepTool.executable.deletingLastPathComponent().appendingPathComponent(executable), name: name, arguments: arguments)
    }

    /// Starts the program at `url`; `name` is for messages.
    static func launch(at url: URL, name: String, arguments: [String]) throws -> ToolProcess {
        let process = try ChildProcess.spawn(url.path, arguments: arguments, output: .captured)
        let player = ToolProcess(name: name, process: process)
        Thread.detachNewThread { [player] in
            var pending = Data()
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { process.readOutput(into: $0) }
                guard count > 0 else { break }
                pending.append(contentsOf: chunk[0..<count])
                while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...end)
                    player.lines.withLock { $0.seen.append(line) }
                }
            }
        }
        return player
    }

    /// The next line not read yet that starts with `prefix`, skipping others; `nil` after `limit`.
    func next(startingWith prefix: String, within limit: Duration) async -> String? {
        let deadline = ContinuousClock.now + limit
        repeat {
            let found: String? = lines.withLock { lines in
                while lines.read < lines.seen.count {
                    let line = lines.seen[lines.read]
                    lines.read += 1
                    if line.hasPrefix(prefix) { return line }
                }
                return nil
            }
            if let found { return found }
            try? await Task.sleep(for: .milliseconds(20))
        } while ContinuousClock.now < deadline
        return nil
    }

    /// A tic-tac-toe player's current key in the `player` bucket, from its latest `player` line.
    func key(within limit: Duration) async -> String? {
        let deadline = ContinuousClock.now + limit
        repeat {
            if let line = lines.withLock({ $0.seen.last { $0.hasPrefix("player ") || $0.hasPrefix("rejoined as ") } }) {
                return line.split(separator: " ").last.map(String.init)
            }
            try? await Task.sleep(for: .milliseconds(20))
        } while ContinuousClock.now < deadline
        return nil
    }

    var transcript: String {
        "\(name):\n" + lines.withLock { $0.seen.joined(separator: "\n") }
    }

    func kill() {
        process.send(SIGKILL)
    }

    /// Asks the process to stop (SIGTERM), as a service manager does.
    func terminate() {
        process.send(SIGTERM)
    }

    /// Kills the process and whatever it started: a child process leads a process group of
    /// its own, which a shell's commands join.
    func killGroup() {
        process.sendToGroup(SIGKILL)
    }

    /// Every line so far that starts with `prefix`.
    func lines(startingWith prefix: String) -> [String] {
        lines.withLock { $0.seen.filter { $0.hasPrefix(prefix) } }
    }

    func exitStatus(within limit: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let status = process.exitStatus { return status.terminationStatus }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}
