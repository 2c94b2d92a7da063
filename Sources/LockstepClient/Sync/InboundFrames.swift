import Synchronization

/// Frames a socket received that its session has not handled yet, oldest first.
///
/// The socket's reader stamps what must be stamped on arrival (clock answers, the last time the
/// server was heard) and appends every other frame here; the session takes everything waiting
/// at once, so changes that arrived while it was writing the previous ones go into the next
/// transaction together. Past ``limit`` bytes the reader stops reading until the session has
/// taken what waits, so a server that sends faster than the client writes is held back by TCP.
final class InboundFrames: Sendable {
    /// Bytes that may wait before the reader stops; a single larger frame still passes.
    let limit: Int
    private let state = Mutex(State())

    private struct State {
        var frames: [String] = []
        var bytes = 0
        var isFinished = false
        /// The session, waiting for a frame.
        var taker: CheckedContinuation<Void, Never>?
        /// The reader, waiting for room.
        var reader: CheckedContinuation<Void, Never>?
    }

    init(limit: Int = 8 << 20) {
        self.limit = limit
    }

    /// Adds `frame`, first waiting while ``limit`` bytes or more wait. Cancelling the caller
    /// finishes the queue.
    func append(_ frame: String) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (room: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state in
                    guard !state.isFinished, state.bytes >= limit else { return false }
                    state.reader = room
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

    /// No more frames come; ``takeAll()`` hands over what is left, then returns `nil`.
    func finish() {
        let (taker, reader) = state.withLock { state in
            state.isFinished = true
            defer {
                state.taker = nil
                state.reader = nil
            }
            return (state.taker, state.reader)
        }
        taker?.resume()
        reader?.resume()
    }

    /// Every frame waiting, oldest first, once there is one; `nil` once finished and empty, or
    /// when the caller is cancelled.
    func takeAll() async -> [String]? {
        while !Task.isCancelled {
            let taken = state.withLock { state -> (frames: [String], reader: CheckedContinuation<Void, Never>?)? in
                guard !state.frames.isEmpty else { return nil }
                defer {
                    state.frames = []
                    state.bytes = 0
                    state.reader = nil
                }
                return (state.frames, state.reader)
            }
            if let taken {
                taken.reader?.resume()
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
