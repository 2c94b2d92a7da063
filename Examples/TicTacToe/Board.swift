/// A tic-tac-toe board: nine cells, each empty, "x" or "o", row by row.
struct Board: Sendable, Equatable, Codable {
    var cells: [String]

    static let empty = Board(cells: Array(repeating: "", count: 9))

    private static let lines = [
        [0, 1, 2], [3, 4, 5], [6, 7, 8],
        [0, 3, 6], [1, 4, 7], [2, 5, 8],
        [0, 4, 8], [2, 4, 6],
    ]

    var freeCells: [Int] { cells.indices.filter { cells[$0].isEmpty } }

    /// "x" or "o" when a side has three in a line, "draw" when the board is full, else `nil`.
    var outcome: String? {
        for line in Self.lines {
            let side = cells[line[0]]
            if !side.isEmpty && line.allSatisfy({ cells[$0] == side }) { return side }
        }
        return freeCells.isEmpty ? "draw" : nil
    }

    /// The board in three lines, cells numbered 1 to 9 where free.
    var picture: String {
        var rows: [String] = []
        for row in [0, 3, 6] {
            let marks: [String] = (row..<row + 3).map { cell in cells[cell].isEmpty ? String(cell + 1) : cells[cell] }
            rows.append(marks.joined(separator: " | "))
        }
        return rows.joined(separator: "\n---------\n")
    }
}
