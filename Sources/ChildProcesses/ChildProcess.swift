#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A program running as a child of this process, started with `posix_spawn`.
///
/// Why not `Foundation.Process`: on Linux its `run()` sizes the descriptor table by reading
/// `/proc/self/fd`, copying each entry's whole 256-byte `d_name` past the end of glibc's
/// buffer; when that buffer ends at an unmapped page the whole process crashes
/// (swiftlang/swift-corelibs-foundation#5472, not in the toolchains we use). Which launches
/// crash depends only on the descriptor table's shape, so no locking around `run()` avoids it.
///
/// The child starts with standard input from `/dev/null`, in a process group of its own (as
/// `Process` started it: a group signal reaches what it starts, a terminal's Ctrl-C does not),
/// with no signal blocked or ignored, and with no descriptor of ours but those its ``Output``
/// asks for (see `openDescriptorsAboveStandardError`). A child nobody waits for is reaped when its handle goes, so none stays a zombie.
public final class ChildProcess: Sendable {
    /// Where the child's standard output and standard error go.
    public enum Output: Sendable {
        /// Both into one pipe, read with ``readOutput(into:)`` or ``readAllOutput()``.
        case captured
        /// Both to `/dev/null`.
        case discarded
        /// Both to this process's.
        case inherited
        /// Standard output to `/dev/null`, standard error to this process's.
        case errorsOnly
    }

    public let pid: Int32
    /// The read end of the pipe the child writes to, with ``Output/captured``.
    let outputDescriptor: Int32?
    /// Set once the child is reaped: after that its pid may be another process's.
    private let reaped = Mutex<ExitStatus?>(nil)

    init(pid: Int32, outputDescriptor: Int32?) {
        self.pid = pid
        self.outputDescriptor = outputDescriptor
    }

    deinit {
        if let outputDescriptor { close(outputDescriptor) }
        if reaped.withLock({ $0 == nil }) {
            let pid = pid
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            }
        }
    }

    /// Sends `signal` (`SIGTERM`, `SIGINT`, `SIGKILL`…) to the child, unless it has been reaped.
    public func send(_ signal: Int32) {
        reaped.withLock { if $0 == nil { _ = kill(pid, signal) } }
    }

    /// Sends `signal` to the child's process group: the child and whatever it started.
    public func sendToGroup(_ signal: Int32) {
        reaped.withLock { if $0 == nil { _ = kill(-pid, signal) } }
    }

    /// How the child ended, or `nil` while it runs. Does not block.
    public var exitStatus: ExitStatus? {
        reaped.withLock { reaped in
            guard reaped == nil else { return reaped }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { reaped = ExitStatus(waitStatus: status) }
            return reaped
        }
    }

    /// Whether the child has not ended yet.
    public var isRunning: Bool { exitStatus == nil }

    /// Blocks until the child ends: call it on a thread of its own, never the cooperative pool's.
    public func waitUntilExit() -> ExitStatus {
        // Waits without reaping (WNOWAIT), so that the reaping, under the lock, cannot race a
        // signal sent to the pid.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        guard let status = exitStatus else { preconditionFailure("child \(pid) ended but could not be reaped") }
        return status
    }

    /// Waits for the child to end on a thread of its own, leaving the cooperative pool free.
    public func waitForExit() async -> ExitStatus {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.waitUntilExit()) }
        }
    }
}
