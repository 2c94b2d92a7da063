import Foundation

/// A person's moves, typed as cell numbers 1 to 9 at the terminal.
final class TerminalMoves: MoveSource {
    private let lines: AsyncStream<String>

    init() {
        let (lines, input) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        // readLine blocks: it gets a thread of its own, never one of the tasks' threads.
        Thread.detachNewThread {
            while let line = readLine() { input.yield(line) }
            input.finish()
        }
    }

    func move(on board: Board, as side: String) async -> Int? {
        write("\n\(board.picture)\n\nYou play \(side). Your move (1-9): ")
        for await line in lines {
            if let cell = Int(line.trimmingCharacters(in: .whitespaces)), (1...9).contains(cell), board.cells[cell - 1].isEmpty {
                return cell - 1
            }
            write("Pick a free cell, 1 to 9: ")
        }
        return nil
    }
}

/// Writes `text` to standard output at once, unbuffered: prompts and event lines must show
/// before the program waits.
func write(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}
