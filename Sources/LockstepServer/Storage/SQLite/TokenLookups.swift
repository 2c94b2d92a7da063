import Synchronization

/// Token lookups (``SyncStore/tokenAuthentication(appID:tokenHash:)``) that arrive while others
/// are being read wait, and are then read together in one read transaction: in a rush of
/// requests one hop to a reader's queue and back serves many, as one flush serves a group of
/// changes (``ChangeWriter``). Alone, a lookup is read at once.
///
/// A lookup is never answered by a read that began before it was asked: a batch is taken
/// from the queue when its read starts. So a token revoked before a request arrives is
/// refused, as when each lookup read alone.
///
/// The hop, not the read, was the cost: in a purchase rush each lookup woke a reader's thread
/// and then the request's, more server CPU than the three indexed reads (BENCHMARKS.md).
final class TokenLookups: Sendable {
    struct Lookup: Sendable {
        var appID: String
        var tokenHash: String
    }

    /// Reads every lookup of a batch in one transaction: one answer each, in their order.
    typealias Read = @Sendable ([Lookup]) async throws -> [TokenAuthentication]

    private struct Waiting: Sendable {
        var lookup: Lookup
        var answer: CheckedContinuation<TokenAuthentication, any Error>
    }

    private struct State {
        var queue: [Waiting] = []
        var isReading = false
    }

    private let state = Mutex(State())
    private let maximumBatch: Int
    private let read: Read

    /// - Parameter maximumBatch: at most this many lookups to one read, so that one read
    ///   transaction stays short.
    init(maximumBatch: Int = 256, read: @escaping Read) {
        self.maximumBatch = max(1, maximumBatch)
        self.read = read
    }

    /// Lookups waiting for the next read.
    var waiting: Int { state.withLock { $0.queue.count } }

    func lookUp(appID: String, tokenHash: String) async throws -> TokenAuthentication {
        try await withCheckedThrowingContinuation { answer in
            let startsReading = state.withLock { state in
                state.queue.append(Waiting(lookup: Lookup(appID: appID, tokenHash: tokenHash), answer: answer))
                defer { state.isReading = true }
                return !state.isReading
            }
            if startsReading { Task { await self.readWhileQueued() } }
        }
    }

    private func readWhileQueued() async {
        while let batch = nextBatch() {
            do {
                let found = try await read(batch.map(\.lookup))
                precondition(found.count == batch.count, "a token lookup read answered \(found.count) of \(batch.count) lookups")
                for (waiting, answer) in zip(batch, found) { waiting.answer.resume(returning: answer) }
            } catch {
                for waiting in batch { waiting.answer.resume(throwing: error) }
            }
        }
    }

    private func nextBatch() -> [Waiting]? {
        state.withLock { state in
            guard !state.queue.isEmpty else {
                state.isReading = false
                return nil
            }
            let batch = Array(state.queue.prefix(maximumBatch))
            state.queue.removeFirst(batch.count)
            return batch
        }
    }
}
