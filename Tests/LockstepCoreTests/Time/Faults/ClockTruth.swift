import LockstepCore

/// The server's clock as a test knows it and the estimator must find it: server time minus
/// local time at each local instant, drifting at `rate` and jumping where the server's clock
/// was set (or the local clock stopped while the device slept).
struct ClockTruth {
    var offsetAtZero: Int64 = bootEpoch
    /// The server's rate over the local clock's, minus one.
    var rate: Double = 0
    var steps: [ClockStep] = []

    func offset(at local: Int64) -> Int64 {
        let stepped = steps.filter { $0.at <= local }.map(\.by).reduce(0, +)
        return offsetAtZero + Int64((rate * Double(local)).rounded()) + stepped
    }

    /// How long the server takes between its two stamps.
    static let processing: Int64 = 50_000

    /// The sample of an exchange that leaves at local `t1` and spends `up` and `down` on the
    /// wire: the server stamps on receipt and ``processing`` later as it answers.
    func exchange(at t1: Int64, up: Int64, down: Int64) -> ClockSample {
        let arrival = t1 + up
        let departure = arrival + Self.processing
        return ClockSample(t1: t1, t2: arrival + offset(at: arrival), t3: departure + offset(at: departure), t4: departure + down)
    }
}

/// The offset changing by `by` at local instant `at`.
struct ClockStep {
    var at: Int64
    var by: Int64
}
