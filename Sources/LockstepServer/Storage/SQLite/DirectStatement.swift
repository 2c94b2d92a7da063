import GRDB
import GRDBSQLite

/// A value bound to one parameter of a statement run through ``DirectStatement``.
enum SQLiteArgument {
    case integer(Int64)
    case text(String)
    case null

    init(_ value: Int) { self = .integer(Int64(value)) }
    init(_ value: Int64) { self = .integer(value) }
    init(_ value: Bool) { self = .integer(value ? 1 : 0) }
    init(_ value: String) { self = .text(value) }
    init(_ value: String?) { self = value.map(SQLiteArgument.text) ?? .null }
}

/// A prepared statement run through SQLite's C interface, for the few statements every change
/// commits through (its bucket's position, its object, its ccid, its rows).
///
/// GRDB's `Row` builds a dictionary of the row's lowercased column names for each query, and
/// its `StatementArguments` box each value and convert it twice before binding: about 19,000
/// instructions a query, a tenth of a one-change commit's, for three lookups and two inserts.
/// Here arguments are bound as they are and columns read by position.
///
/// The statement stays GRDB's (prepared and cached by it, used only on its connection's
/// queue): it is reset before it is bound and after it is read, so GRDB finds it as it left it.
struct DirectStatement {
    private let statement: Statement

    init(_ statement: Statement) {
        self.statement = statement
    }

    /// Binds `arguments`, steps once, and reads the first row, if there is one.
    func firstRow<T>(_ arguments: [SQLiteArgument], _ read: (SQLiteColumns) throws -> T) throws -> T? {
        let handle = statement.sqliteStatement
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return try read(SQLiteColumns(handle: handle))
        case SQLITE_DONE: return nil
        case let code: throw failure(code)
        }
    }

    /// Binds `arguments` and reads every row.
    func rows<T>(_ arguments: [SQLiteArgument], _ read: (SQLiteColumns) throws -> T) throws -> [T] {
        let handle = statement.sqliteStatement
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        var rows: [T] = []
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: rows.append(try read(SQLiteColumns(handle: handle)))
            case SQLITE_DONE: return rows
            case let code: throw failure(code)
            }
        }
    }

    /// Binds `arguments` and runs the statement to its end (an insert or an update).
    func run(_ arguments: [SQLiteArgument]) throws {
        let handle = statement.sqliteStatement
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        var code = sqlite3_step(handle)
        while code == SQLITE_ROW { code = sqlite3_step(handle) }
        guard code == SQLITE_DONE else { throw failure(code) }
    }

    private func bind(_ arguments: [SQLiteArgument]) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        precondition(arguments.count == Int(sqlite3_bind_parameter_count(handle)), "\(statement.sql) takes other arguments")
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch argument {
            case .integer(let value):
                code = sqlite3_bind_int64(handle, index, value)
            case .text(let value) where value.isEmpty:
                // A zero-length text needs a pointer all the same: a null one binds NULL.
                code = sqlite3_bind_text(handle, index, "", 0, nil)
            case .text(var value):
                code = value.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { text in
                        sqlite3_bind_text(handle, index, text.baseAddress, Int32(text.count), SQLITE_TRANSIENT)
                    }
                }
            case .null:
                code = sqlite3_bind_null(handle, index)
            }
            guard code == SQLITE_OK else { throw failure(code) }
        }
    }

    private func failure(_ code: Int32) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: String(cString: sqlite3_errmsg(sqlite3_db_handle(statement.sqliteStatement))), sql: statement.sql)
    }

}

/// Makes SQLite copy a bound text, which lives only as long as the binding call.
private let SQLITE_TRANSIENT = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// The columns of the row a ``DirectStatement`` stepped to, read by position.
struct SQLiteColumns {
    fileprivate let handle: OpaquePointer

    func integer(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func int(_ column: Int32) -> Int {
        Int(sqlite3_column_int64(handle, column))
    }

    func optionalInteger(_ column: Int32) -> Int64? {
        isNull(column) ? nil : integer(column)
    }

    func optionalInt(_ column: Int32) -> Int? {
        isNull(column) ? nil : int(column)
    }

    func bool(_ column: Int32) -> Bool {
        sqlite3_column_int64(handle, column) != 0
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    func text(_ column: Int32) -> String {
        // The pointer first, then the length: asking for the text may convert the value.
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? {
        isNull(column) ? nil : text(column)
    }
}

extension BucketScope {
    /// `app_id, owner, bucket`, the first three parameters of most statements about a bucket.
    var sqliteArguments: [SQLiteArgument] {
        [.text(appID), .text(ownerKey), .text(bucket)]
    }
}
