import Synchronization

/// Frames a socket received and its session has not handled yet, in order.
///
/// The socket's reader appends each frame as it arrives, so clock answers and heartbeats are
/// seen at once; the session takes everything waiting in one go, which lets it apply a run of
/// changes in one transaction instead of one each. Past ``limit`` bytes the reader waits, so
/// a server that sends faster than the session applies is still held back by TCP.
final class InboundFrames: Sendable {
    /// Bytes that may wait before the reader stops reading; one frame always fits.
    let limit: Int
    private let state = Mutex(State())

    private struct State {
        var frames: [String] = []
        var bytes = 0
        var isFinished = false
        var taker: CheckedContinuation<Void, Never>?
        var readers: [CheckedContinuation<Void, Never>] = []
    }

    init(limit: Int = 8 * 1024 * 1024) {
        self.limit = limit
    }

    /// Adds a frame, first waiting while more than ``limit`` bytes are waiting.
    func append(_ frame: String) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (room: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state in
                    guard !state.isFinished, state.bytes >= limit else { return false }
                    state.readers.append(room)
                    return true
                }
                if !waits { room.resume() }
            }
        } onCancel: {
            finish()
        }
        let taker = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.isFinished else { return nil }
            state.frames.append(frame)
            state.bytes += frame.utf8.count
            defer { state.taker = nil }
            return state.taker
        }
        taker?.resume()
    }

    /// No more frames will come; ``takeAll()`` returns what is left, then `nil`.
    func finish() {
        let (taker, readers) = state.withLock { state in
            state.isFinished = true
            defer {
                state.taker = nil
                state.readers = []
            }
            return (state.taker, state.readers)
        }
        taker?.resume()
        for reader in readers { reader.resume() }
    }

    /// Every frame waiting, oldest first, once there is at least one; `nil` once finished and
    /// empty, or when the caller is cancelled.
    func takeAll() async -> [String]? {
        while !Task.isCancelled {
            let taken = state.withLock { state -> (frames: [String], readers: [CheckedContinuation<Void, Never>])? in
                guard !state.frames.isEmpty else { return nil }
                defer {
                    state.frames = []
                    state.bytes = 0
                    state.readers = []
                }
                return (state.frames, state.readers)
            }
            if let taken {
                for reader in taken.readers { reader.resume() }
                return taken.frames
            }
            if state.withLock({ $0.isFinished }) { return nil }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (arrival: CheckedContinuation<Void, Never>) in
                    let waits = state.withLock { state in
                        guard state.frames.isEmpty, !state.isFinished else { return false }
                        state.taker = arrival
                        return true
                    }
                    if !waits { arrival.resume() }
                }
            } onCancel: {
                finish()
            }
        }
        return nil
    }
}
