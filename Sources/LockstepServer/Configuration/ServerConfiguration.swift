public import Logging

/// How a Lockstep server runs: where it listens, where it stores, and its limits.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// The port to listen on; 0 asks the system for a free one (tests use this).
    public var port = 8080
    /// Where the embedded SQLite database lives.
    public var dataDirectory = "./lockstep-data"
    /// A PostgreSQL URL (`postgres://user:pass@host:port/db`) to use instead of SQLite.
    public var databaseURL: String?
    public var logLevel = Logger.Level.info
    public var limits = Limits()
    /// Testing only: report server time shifted by this many nanoseconds.
    public var clockOffsetNanoseconds: Int64 = 0

    public init() {}

    /// The SQLite database file inside the data directory.
    public var databasePath: String { dataDirectory + "/lockstep.sqlite" }
}
