public import LockstepCore

/// What one slot of a store shows at a moment.
///
/// ```swift
/// switch slot.content {
/// case .item(let item): show(item.data["name"]?.stringValue ?? item.id, left: slot.secondsLeft)
/// case .sealed: show("opening…")
/// case .empty: show("")
/// case .unknown: show("?")
/// }
/// ```
public struct SlotState: Sendable, Equatable {
    /// What the slot shows.
    public enum Content: Sendable, Equatable {
        /// The item, opened with its verified key.
        case item(ReleasedItem)
        /// The schedule left the slot empty (every weight was zero).
        case empty
        /// Showing, but its key has not arrived yet.
        case sealed
        /// No window this client holds covers the moment: it has run out.
        case unknown
    }

    /// The slot's number in the grid, from 0.
    public var slot: Int
    /// What it shows.
    public var content: Content
    /// The showing's start and end, milliseconds since the Unix epoch, server time; `nil` when unknown.
    public var start: Int64?
    /// When the showing ends, milliseconds since the Unix epoch, server time; `nil` when unknown.
    public var end: Int64?
    /// How far through its showing the slot is, from 0 to 1.
    public var progress: Double
    /// Seconds until the showing ends.
    public var secondsLeft: Double

    /// A slot's state with these parts; the timeline makes them, previews may too.
    public init(slot: Int, content: Content, start: Int64?, end: Int64?, progress: Double, secondsLeft: Double) {
        self.slot = slot
        self.content = content
        self.start = start
        self.end = end
        self.progress = progress
        self.secondsLeft = secondsLeft
    }
}

/// Every slot of a store at one moment: what ``ReleaseTimeline`` emits on each tick.
public struct ReleaseSnapshot: Sendable, Equatable {
    /// The store's id.
    public var store: String
    /// Server time, milliseconds since the Unix epoch.
    public var time: Int64
    /// Every slot, in order of its number; empty before the first window arrives.
    public var slots: [SlotState]
    /// Until when the windows held cover the store; `nil` before the first window.
    public var coveredUntil: Int64?

    /// A snapshot with these parts; the timeline makes them, previews may too.
    public init(store: String, time: Int64, slots: [SlotState], coveredUntil: Int64?) {
        self.store = store
        self.time = time
        self.slots = slots
        self.coveredUntil = coveredUntil
    }
}
