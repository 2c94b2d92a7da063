import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepClient
import LockstepCore

/// `lockstep store …`: look at a server's timed stores.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store", abstract: "Look at a server's timed stores.", subcommands: [StoreWatch.self])
}

/// `lockstep store watch --url URL STORE`: the grid, live, with a progress bar under each slot.
struct StoreWatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Show a store's grid live, on the server's clock.",
        discussion: "Items appear as their keys are released; a bar under each slot shows how much of its showing has passed.")

    @Option(help: "The server's base URL.")
    var url = "http://127.0.0.1:8080"

    @Option(help: "Slots per row.")
    var columns = 6

    @Option(help: "Stop after this many frames (for scripts); 0 runs until interrupted.")
    var frames = 0

    @Argument(help: "The store to watch.")
    var store: String

    func validate() throws {
        guard (1...20).contains(columns) else { throw ValidationError("--columns must be from 1 to 20") }
    }

    func run() async throws {
        FileHandle.standardOutput.write(Data("\u{1B}[2J".utf8))
        try await watch { frame in FileHandle.standardOutput.write(Data(("\u{1B}[H" + frame).utf8)) }
    }

    /// Calibrates a ``ServerClock`` against the server (and keeps it calibrated), then hands
    /// `show` the grid five times a second, on the server's clock.
    func watch(show: (String) -> Void) async throws {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        guard let serverURL = URL(string: base + "/") else { throw ValidationError("--url \(url) is not a URL") }
        let clock = ServerClock(transport: HTTPClockExchangeTransport(serverURL: serverURL))
        do {
            try await clock.resync()
        } catch {
            throw CommandError("\(base)/time did not answer a clock exchange: \(error)")
        }
        let resyncing = Task { try await clock.run() }
        defer { resyncing.cancel() }
        let timeline = ReleaseTimeline(store: store, time: clock, fetcher: HTTPReleaseFetcher(baseURL: base))
        let grid = GridRenderer(columns: columns)
        var shown = 0
        for await snapshot in timeline.snapshots(every: .milliseconds(200)) {
            show(grid.render(snapshot, error: await timeline.lastError.map { "\($0)" }))
            shown += 1
            if frames > 0 && shown >= frames { break }
        }
    }
}

/// Draws a snapshot as a grid of cells: the item over a progress bar and the seconds left.
struct GridRenderer {
    let columns: Int
    let cellWidth = 18

    func render(_ snapshot: ReleaseSnapshot, error: String?) -> String {
        var lines = ["store \(snapshot.store) · server time \(Self.clockText(snapshot.time))" + (snapshot.coveredUntil.map { " · covered until \(Self.clockText($0))" } ?? "")]
        lines.append(error.map { "last problem: \($0)" } ?? "")
        for row in stride(from: 0, to: snapshot.slots.count, by: columns) {
            let cells = snapshot.slots[row..<min(row + columns, snapshot.slots.count)]
            lines.append(cells.map { pad(title($0)) }.joined(separator: " "))
            lines.append(cells.map { pad(bar($0)) }.joined(separator: " "))
            lines.append("")
        }
        if snapshot.slots.isEmpty { lines.append("waiting for the first window…") }
        // Clearing to the end of each line and of the screen removes what a longer frame left.
        return lines.map { $0 + "\u{1B}[K" }.joined(separator: "\n") + "\u{1B}[J"
    }

    private func title(_ slot: SlotState) -> String {
        let number = String(format: "%02d ", slot.slot)
        switch slot.content {
        case .item(let item): return number + (item.data["name"]?.stringValue ?? item.id)
        case .empty: return number + "(empty)"
        case .sealed: return number + "▒ sealed"
        case .unknown: return number + "?"
        }
    }

    private func bar(_ slot: SlotState) -> String {
        guard slot.start != nil else { return "" }
        let seconds = String(format: "%4.0fs", max(0, slot.secondsLeft))
        let width = cellWidth - seconds.count - 1
        let filled = Int((slot.progress * Double(width)).rounded(.down))
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled) + " " + seconds
    }

    private func pad(_ text: String) -> String {
        let clipped = String(text.prefix(cellWidth))
        return clipped + String(repeating: " ", count: cellWidth - clipped.count)
    }

    static func clockText(_ milliseconds: Int64) -> String {
        let dayMilliseconds = ((milliseconds % 86_400_000) + 86_400_000) % 86_400_000
        let seconds = dayMilliseconds / 1000
        return String(format: "%02d:%02d:%02d.%01d", seconds / 3600, seconds / 60 % 60, seconds % 60, dayMilliseconds % 1000 / 100)
    }
}
