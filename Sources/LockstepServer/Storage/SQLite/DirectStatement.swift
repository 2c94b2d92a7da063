import GRDB
import GRDBSQLite

/// A value bound to one parameter of a statement run through ``DirectStatement``.
enum SQLiteArgument {
    case integer(Int64)
    case text(String)
    case null

    init(_ value: Int) { self = .integer(Int64(value)) }
    init(_ value: Int64) { self = .integer(value) }
    init(_ value: Int?) { self = value.map(SQLiteArgument.init) ?? .null }
    init(_ value: Int64?) { self = value.map(SQLiteArgument.init) ?? .null }
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
/// queue): it is reset before it is bound, and reset with its bindings cleared once it has
/// run, so GRDB finds it idle and bound to nothing.
struct DirectStatement {
    private let statement: Statement

    init(_ statement: Statement) {
        self.statement = statement
    }

    /// Binds `scope` (its app, owner and bucket, when the statement's first three parameters
    /// name one) and `arguments`, steps once, and reads the first row, if there is one.
    func firstRow<T>(in scope: BucketScope? = nil, _ arguments: [SQLiteArgument], _ read: (SQLiteColumns) throws -> T) throws -> T? {
        try withBindings(scope, arguments) { handle in
            switch sqlite3_step(handle) {
            case SQLITE_ROW: return try read(SQLiteColumns(handle: handle))
            case SQLITE_DONE: return nil
            case let code: throw failure(code)
            }
        }
    }

    /// Binds `scope` and `arguments` and reads every row.
    func rows<T>(in scope: BucketScope? = nil, _ arguments: [SQLiteArgument], _ read: (SQLiteColumns) throws -> T) throws -> [T] {
        try withBindings(scope, arguments) { handle in
            var rows: [T] = []
            while true {
                switch sqlite3_step(handle) {
                case SQLITE_ROW: rows.append(try read(SQLiteColumns(handle: handle)))
                case SQLITE_DONE: return rows
                case let code: throw failure(code)
                }
            }
        }
    }

    /// Binds `scope` and `arguments` and runs the statement to its end (an insert or an update).
    func run(in scope: BucketScope? = nil, _ arguments: [SQLiteArgument]) throws {
        try withBindings(scope, arguments) { handle in
            var code = sqlite3_step(handle)
            while code == SQLITE_ROW { code = sqlite3_step(handle) }
            guard code == SQLITE_DONE else { throw failure(code) }
        }
    }

    /// Runs `body` with the parameters bound. Texts are not copied (copying each was a malloc
    /// and a memcpy, the most of a binding): SQLite reads them where their strings keep them,
    /// which holds while `body` runs, and afterwards the statement is reset and its bindings
    /// cleared, so that it never keeps a pointer to them.
    private func withBindings<R>(_ scope: BucketScope?, _ arguments: [SQLiteArgument], _ body: (OpaquePointer) throws -> R) throws -> R {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        let prefix: [SQLiteArgument] = scope.map { [.text($0.appID), .text($0.ownerKey), .text($0.bucket)] } ?? []
        precondition(prefix.count + arguments.count == Int(sqlite3_bind_parameter_count(handle)), "\(statement.sql) takes other arguments")
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        return try bind(prefix[...], at: 1, handle) { index in
            try bind(arguments[...], at: index, handle) { _ in try body(handle) }
        }
    }

    /// Binds `arguments` from parameter `index` on, then runs `body` with the next index, each
    /// text bound inside its string's `withUTF8`.
    private func bind<R>(
        _ arguments: ArraySlice<SQLiteArgument>, at index: Int32, _ handle: OpaquePointer, then body: (Int32) throws -> R
    ) throws -> R {
        guard let argument = arguments.first else { return try body(index) }
        let rest = arguments.dropFirst()
        let code: Int32
        switch argument {
        case .integer(let value):
            code = sqlite3_bind_int64(handle, index, value)
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .text(let value) where value.isEmpty:
            // A zero-length text needs a pointer all the same: a null one binds NULL.
            code = sqlite3_bind_text(handle, index, "", 0, nil)
        case .text(var value):
            return try value.withUTF8 { bytes in
                let code = bytes.withMemoryRebound(to: CChar.self) { text in
                    sqlite3_bind_text(handle, index, text.baseAddress, Int32(text.count), nil)
                }
                guard code == SQLITE_OK else { throw failure(code) }
                return try bind(rest, at: index + 1, handle, then: body)
            }
        }
        guard code == SQLITE_OK else { throw failure(code) }
        return try bind(rest, at: index + 1, handle, then: body)
    }

    private func failure(_ code: Int32) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: String(cString: sqlite3_errmsg(sqlite3_db_handle(statement.sqliteStatement))), sql: statement.sql)
    }
}

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
