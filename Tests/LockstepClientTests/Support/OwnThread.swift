import Foundation

/// Runs blocking work (a socket read, a pipe drained to its end, a process waited for) on a
/// thread of its own.
///
/// Never block a task's thread instead: the cooperative pool has one thread per core, two on
/// CI's machines, and the in-process servers the tests talk to answer on that same pool. Two
/// tests blocked at once would wait forever for a server that cannot run.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
