import GRDB

extension Database {
    /// `execute(sql:arguments:)` through this connection's statement cache. The replica runs the
    /// same few statements for every object it touches, and parsing each anew (with GRDB's
    /// authorizer looking at every column) cost more than running it: half the CPU of taking in
    /// a run of changes went to `sqlite3_prepare`.
    func executeCached(sql: String, arguments: StatementArguments = StatementArguments()) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}
