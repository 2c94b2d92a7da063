import CommandLineSupport
import Foundation
import LockstepClient

/// Shows transfers as they go: on a terminal, a bar redrawn in place per transfer; otherwise
/// (a pipe, a log, a test reading us) one line per step,
/// `upload <sha256 prefix> <bytes>/<total> <state>`, which scripts can follow.
struct ProgressDisplay: Sendable {
    let isTerminal = isatty(STDOUT_FILENO) == 1

    func show(_ progress: TransferProgress, label: String? = nil) {
        let direction = progress.direction == .upload ? "upload" : "download"
        let name = label ?? String(progress.attachment.sha256.prefix(12))
        let state = switch progress.state {
        case .queued: "queued"
        case .transferring: "transferring"
        case .completed: "completed"
        case .failed(let error): "failed: \(error)"
        }
        guard isTerminal else {
            return say("\(direction) \(name) \(progress.completedBytes)/\(progress.totalBytes) \(state)")
        }
        let width = 30
        let filled = Int(progress.fractionCompleted * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = Int(progress.fractionCompleted * 100)
        let line = "\r\(direction) \(name) [\(bar)] \(percent)% \(Self.megabytes(progress.completedBytes))/\(Self.megabytes(progress.totalBytes)) \(state)   "
        FileHandle.standardOutput.write(Data((line + (progress.isFinished ? "\n" : "")).utf8))
    }

    private static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
