import LockstepCore

extension ClockSample {
    /// The sample an exchange starting at local `t1` records, against a server clock that reads
    /// `offset(local) + local` (the server stamps on receipt and just before sending).
    static func exchange(
        at t1: Int64, up: Int64, down: Int64, processing: Int64 = 50_000,
        offset: (Int64) -> Int64
    ) -> ClockSample {
        let arrival = t1 + up
        let departure = arrival + processing
        return ClockSample(
            t1: t1,
            t2: arrival + offset(arrival),
            t3: departure + offset(departure),
            t4: departure + down
        )
    }
}

let millisecond: Int64 = 1_000_000
let second: Int64 = 1_000_000_000
let minute: Int64 = 60 * second
/// An epoch-scale offset: a device clock counting from boot against Unix time in mid-2025.
let bootEpoch: Int64 = 1_748_761_200 * second + 123_456_789
