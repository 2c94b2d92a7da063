import Foundation
import Synchronization

/// Hashes and checks passwords (``PasswordHasher``) on threads of its own: one fewer than the
/// machine has cores (one on two cores), each taking one hash at a time.
///
/// scrypt is meant to be slow: at the default cost a hash is about a tenth of a second of CPU
/// and 32 MB. Run by the handler's task, it held a thread of the cooperative pool all that time,
/// and on two cores two sign-ins at once held every task of the server (each socket's messages,
/// every HTTP request) until they were done. Here sign-ins past the threads wait for each other
/// instead, a core is always left for the rest, and memory stays one hash's a thread, however
/// many arrive at once.
final class PasswordWorker: Sendable {
    private let hasher: PasswordHasher
    /// What a sign-in without a real hash to check is checked against, at the same cost.
    private let decoy: DecoyPasswordHash
    private let threads: [SerialThread]
    /// The thread the next job goes to, taken in turn.
    private let nextThread = Atomic<Int>(0)

    init(hasher: PasswordHasher, threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)) {
        self.hasher = hasher
        decoy = DecoyPasswordHash(hasher: hasher)
        // One name for all: Linux keeps 15 bytes of a thread's name and refuses a longer one.
        self.threads = (0..<max(1, threads)).map { _ in SerialThread(name: "lockstep-scrypt") }
    }

    var threadCount: Int { threads.count }

    /// A new hash of `password`, to store.
    func hash(_ password: String) async throws -> String {
        let hasher = hasher
        return try await run { try hasher.hash(password) }
    }

    /// Whether `password` matches `stored`. With no stored hash (an unknown name, a user
    /// without a password) the decoy is checked all the same and the answer is `false`, so the
    /// answer takes as long either way and does not tell which names exist.
    func verify(_ password: String, against stored: String?) async -> Bool {
        let (hasher, decoy) = (hasher, decoy)
        return (try? await run {
            guard let stored else {
                _ = hasher.verify(password, against: decoy.hash)
                return false
            }
            return hasher.verify(password, against: stored)
        }) ?? false
    }

    /// Runs `work` on one of the worker's threads, after the work queued there before it.
    func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        let thread = threads[nextThread.wrappingAdd(1, ordering: .relaxed).oldValue % threads.count]
        return try await withCheckedThrowingContinuation { answer in
            thread.start { answer.resume(with: Result { try work() }) }
        }
    }
}
