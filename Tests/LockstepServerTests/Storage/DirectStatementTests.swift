import Foundation
import GRDB
@testable import LockstepServer
import PropertyBased
import Testing

/// The hot statements bind and read through SQLite's C interface (``DirectStatement``): what
/// they write is what GRDB reads back, and what GRDB wrote is what they read, on a real file.
@Suite("SQLite: statements bound and read directly")
struct DirectStatementTests {
    /// A row of every kind of value a change row holds.
    struct Values: Sendable, CustomStringConvertible {
        var text: String
        var optionalText: String?
        var integer: Int64
        var optionalInteger: Int64?
        var flag: Bool

        var description: String { "\(text.debugDescription) \(String(describing: optionalText)) \(integer) \(String(describing: optionalInteger)) \(flag)" }
    }

    /// Empty, ASCII, escapes, combining marks, emoji, text past SQLite's small-string sizes, and
    /// NUL where asked: GRDB binds and reads text as C strings, so it cannot carry a NUL itself.
    static func text(_ rng: inout some RandomNumberGenerator, nul: Bool) -> String {
        let pieces = ["", "a", "\"\\", "e\u{301}", "é", "👨‍👩‍👧", "\n\t", String(repeating: "x", count: 300), "ключ"] + (nul ? ["\u{0}"] : [])
        return (0..<Int.random(in: 0...4, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }

    static func values(_ rng: inout some RandomNumberGenerator, nul: Bool) -> Values {
        let integers: [Int64] = [0, 1, -1, .max, .min, Int64.random(in: .min ... .max, using: &rng)]
        return Values(
            text: text(&rng, nul: nul), optionalText: Bool.random(using: &rng) ? text(&rng, nul: nul) : nil,
            integer: integers.randomElement(using: &rng)!,
            optionalInteger: Bool.random(using: &rng) ? integers.randomElement(using: &rng)! : nil, flag: Bool.random(using: &rng))
    }

    private static let selectSQL = "SELECT text, optional_text, integer, optional_integer, flag FROM t"

    private static func database() throws -> (DatabaseQueue, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("direct.sqlite").path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT NOT NULL, optional_text TEXT, integer INTEGER NOT NULL, optional_integer INTEGER, flag INTEGER NOT NULL)")
        }
        return (queue, directory)
    }

    private static let insertSQL = "INSERT INTO t (id, text, optional_text, integer, optional_integer, flag) VALUES (?, ?, ?, ?, ?, ?)"

    private static func arguments(_ id: Int, _ values: Values) -> [SQLiteArgument] {
        [
            SQLiteArgument(id), SQLiteArgument(values.text), SQLiteArgument(values.optionalText), SQLiteArgument(values.integer),
            SQLiteArgument(values.optionalInteger), SQLiteArgument(values.flag),
        ]
    }

    private static func read(_ columns: SQLiteColumns) -> Values {
        Values(
            text: columns.text(0), optionalText: columns.optionalText(1), integer: columns.integer(2),
            optionalInteger: columns.optionalInteger(3), flag: columns.bool(4))
    }

    private static func same(_ left: Values, _ right: Values) -> Bool {
        // Scalar by scalar: String's == would take "e\u{301}" for "é", and SQLite must keep the bytes.
        Array(left.text.unicodeScalars) == Array(right.text.unicodeScalars)
            && left.optionalText.map { Array($0.unicodeScalars) } == right.optionalText.map { Array($0.unicodeScalars) }
            && left.integer == right.integer && left.optionalInteger == right.optionalInteger && left.flag == right.flag
    }

    /// Written and read directly, the values come back as they were, NUL included, one row
    /// or many, through statements used again and again.
    @Test func valuesRoundTrip() async throws {
        let (queue, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rows = Generator { rng in (0..<Int.random(in: 1...6, using: &rng)).map { _ in Self.values(&rng, nul: true) } }
        await propertyCheck(count: 200, input: rows) { rows throws in
            try queue.write { db in
                try db.execute(sql: "DELETE FROM t")
                let insert = DirectStatement(try db.cachedStatement(sql: Self.insertSQL))
                for (id, values) in rows.enumerated() { try insert.run(Self.arguments(id, values)) }
                let select = DirectStatement(try db.cachedStatement(sql: Self.selectSQL + " WHERE id = ?"))
                for (id, values) in rows.enumerated() {
                    let read = try #require(try select.firstRow([SQLiteArgument(id)], Self.read))
                    #expect(Self.same(read, values), "\(read) read back as written: \(values)")
                }
                #expect(try select.firstRow([SQLiteArgument(rows.count)], Self.read) == nil)
                let all = try DirectStatement(try db.cachedStatement(sql: Self.selectSQL + " ORDER BY id")).rows([], Self.read)
                #expect(all.count == rows.count)
                #expect(zip(all, rows).allSatisfy(Self.same))
            }
        }
    }

    /// What GRDB wrote reads directly, and what was written directly GRDB reads: the paths that
    /// still go through GRDB (the console, the index walk) see the same rows.
    @Test func valuesCrossBetweenGRDBAndDirectStatements() async throws {
        let (queue, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        await propertyCheck(count: 200, input: Generator { rng in Self.values(&rng, nul: false) }) { values throws in
            try queue.write { db in
                try db.execute(sql: "DELETE FROM t")
                try DirectStatement(try db.cachedStatement(sql: Self.insertSQL)).run(Self.arguments(1, values))
                let row = try #require(try Row.fetchOne(db, sql: Self.selectSQL))
                let readByGRDB = Values(
                    text: row[0], optionalText: row[1], integer: row[2], optionalInteger: row[3], flag: row[4])
                #expect(Self.same(readByGRDB, values), "\(readByGRDB) read by GRDB as written directly: \(values)")
                try db.execute(sql: "DELETE FROM t")
                try db.execute(
                    sql: Self.insertSQL, arguments: [1, values.text, values.optionalText, values.integer, values.optionalInteger, values.flag])
                let readDirectly = try #require(try DirectStatement(try db.cachedStatement(sql: Self.selectSQL)).firstRow([], Self.read))
                #expect(Self.same(readDirectly, values), "\(readDirectly) read directly as GRDB wrote: \(values)")
            }
        }
    }

    /// A statement SQLite refuses fails with SQLite's message and the statement's text, stores
    /// nothing, and the statement serves again afterwards.
    @Test func aRefusedStatementSaysWhyAndServesAgain() throws {
        let (queue, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        let row = Values(text: "a", optionalText: nil, integer: 1, optionalInteger: nil, flag: true)
        try queue.write { db in
            let insert = DirectStatement(try db.cachedStatement(sql: Self.insertSQL))
            try insert.run(Self.arguments(1, row))
            let error = #expect(throws: DatabaseError.self) { try insert.run(Self.arguments(1, row)) }
            #expect(error?.resultCode == .SQLITE_CONSTRAINT)
            #expect(error?.message?.contains("UNIQUE constraint failed: t.id") == true, "\(String(describing: error?.message))")
            #expect(error?.sql == Self.insertSQL)
            try insert.run(Self.arguments(2, row))
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 2)
        }
    }
}
