import ChildProcesses
import Foundation

/// Reads what a child started with `.captured` output prints, line by line, on a thread of its
/// own, handing each line to `onLine` until the child closes its output. Someone must read a
/// captured child's output all the time: one whose pipe fills up stops at its next print.
enum ChildOutputLines {
    static func follow(_ process: ChildProcess, onLine: @escaping @Sendable (String) -> Void) {
        Thread.detachNewThread {
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { process.readOutput(into: $0) }
                guard count > 0 else { break }
                pending += chunk[0..<count]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    onLine(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            if !pending.isEmpty { onLine(String(decoding: pending, as: UTF8.self)) }
        }
    }
}
