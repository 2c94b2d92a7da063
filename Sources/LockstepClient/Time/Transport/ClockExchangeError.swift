/// Why an exchange produced no usable stamps.
public enum ClockExchangeError: Error, Hashable, Sendable {
    /// The server answered with a status other than 200.
    case unexpectedStatus(Int)
    /// The reply was not the expected JSON, or echoed another exchange's `t1`.
    case malformedReply(String)
    /// The reply carried no `Date` header that parses as an HTTP date.
    case missingDate
}
