/// The times a release may have: from the Unix epoch to the last millisecond of year 9999.
///
/// Windows and keys come from the network, and chain positions multiply epochs back into times:
/// a key of epoch 4769992147487 (any past 2.56 × 10¹²) overflowed `Int64` when asked its release
/// time, and crashed the client that read it. Readers refuse what lies outside these bounds, so
/// that everything past them can compute with times freely.
public enum ReleaseTimes {
    /// Milliseconds since the Unix epoch.
    public static let range: ClosedRange<Int64> = 0...253_402_300_799_999
    /// The epochs whose keys are released within ``range``.
    public static let epochs: ClosedRange<Int64> = 0...(range.upperBound / ReleaseKeyChain.epochMilliseconds)
}
