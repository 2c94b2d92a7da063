/// How far one attachment's upload or download has come: what ``LockstepClient/transfers`` and
/// ``LockstepClient/progress(of:)`` deliver, for a progress bar.
///
/// ```swift
/// for await progress in client.progress(of: photo) {
///     bar.value = progress.fractionCompleted          // 0.0 … 1.0
///     if case .failed(let error) = progress.state { show(error) }
/// }
/// ```
public struct TransferProgress: Sendable, Equatable {
    /// Which way the bytes go.
    public enum Direction: Sendable, Equatable {
        /// From this device to the server.
        case upload
        /// From the server to this device.
        case download
    }

    /// Where the transfer is in its life.
    public enum State: Sendable, Equatable {
        /// Waiting its turn: data changes go first (see ``ChangePriority``), then uploads by
        /// priority; or the server cannot be reached.
        case queued
        /// Bytes are moving.
        case transferring
        /// The server holds the whole blob (upload), or the device does (download).
        case completed
        /// Stopped for good; for an upload, until the app attaches the same bytes again.
        case failed(AttachmentError)
    }

    /// The attachment whose bytes move.
    public var attachment: Attachment
    /// Upload or download.
    public var direction: Direction
    /// Bytes done: for an upload, those the server confirmed it holds.
    public var completedBytes: Int64
    /// Queued, transferring, completed or failed.
    public var state: State

    /// The attachment's size.
    public var totalBytes: Int64 { attachment.size }

    /// `completedBytes` over `totalBytes`, from 0 to 1 (1 for an empty attachment).
    public var fractionCompleted: Double {
        attachment.size == 0 ? 1 : min(1, Double(completedBytes) / Double(attachment.size))
    }

    /// Whether nothing more will happen to this transfer.
    public var isFinished: Bool {
        switch state {
        case .completed, .failed: true
        case .queued, .transferring: false
        }
    }

    /// Progress with these parts; the client makes them, previews may too.
    public init(attachment: Attachment, direction: Direction, completedBytes: Int64, state: State) {
        self.attachment = attachment
        self.direction = direction
        self.completedBytes = completedBytes
        self.state = state
    }
}

extension TransferProgress {
    /// A listener that falls behind keeps the latest 256 updates and loses older ones:
    /// progress is a level to show, not a log, and the last update of a transfer (its end) is
    /// always among the latest.
    static let buffering = AsyncStream<TransferProgress>.Continuation.BufferingPolicy.bufferingNewest(256)
}
