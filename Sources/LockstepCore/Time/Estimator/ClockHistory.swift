/// The exchanges a ``ClockEstimator`` remembers: everything needed to rebuild its estimate,
/// and all it needs to persist.
public struct ClockHistory: Sendable, Hashable, Codable {
    /// The most recent samples, oldest first: the offset's window.
    public var samples: [ClockSample]
    /// One offset per completed round of exchanges, oldest first: the drift's window.
    public var rounds: [ClockEstimate]
    /// The samples of the round still in progress.
    public var openRound: [ClockSample]

    public init(samples: [ClockSample] = [], rounds: [ClockEstimate] = [], openRound: [ClockSample] = []) {
        self.samples = samples
        self.rounds = rounds
        self.openRound = openRound
    }
}
