import FuzzSupport
import LockstepCore

@main enum FuzzReleaseConfiguration {
    static func main() { runFuzzer { data, count in fuzzReleaseConfiguration(data, count) } }
}

/// The timed store's configuration file, and the schedules and windows the server makes from
/// whatever file it accepted.
///
/// Input: a configuration file (`{"stores":[…],"items":[…],"overrides":[…]}`).
///
/// Laws: a file is accepted or refused with a located error, never a crash; for a file that is
/// accepted, every store's window verifies, writes back to itself, and each of its boxes opens
/// with its chain key to the item the schedule put there.
func fuzzReleaseConfiguration(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let configuration: ReleaseConfiguration
    do {
        configuration = try ReleaseConfiguration(parsing: FuzzInput(data, count).bytes, fileName: "fuzz.json")
    } catch {
        law(error.line >= 1, "an error without a line: \(error)")
        return 0
    }
    // Windows where the overrides change the weights, as long as they and their entries (which
    // start up to a day's shelf life before them) lie in the times windows may have.
    let servable = (ReleaseTimes.range.lowerBound + 2 * day)...(ReleaseTimes.range.upperBound - 2 * day)
    var moments = [windowStart]
    for rule in configuration.overrides {
        moments += [rule.from, rule.until].compactMap { $0 }.filter(servable.contains).map(ReleaseWindow.start(containing:))
    }
    for store in configuration.stores {
        let schedule = StoreSchedule(configuration: configuration, store: store, seed: seed)
        // A window holds about slots × 600 s / shortest shelf life entries, each sealed: keep
        // the inputs whose windows take milliseconds, and only list entries for the others.
        guard store.slots * (600 / store.shelfLife.minimumSeconds + 2) <= 2_000 else {
            _ = schedule.entries(from: windowStart, to: windowStart + 1_000)
            continue
        }
        for start in moments.prefix(3) { checkWindow(of: schedule, at: start) }
    }
    return 0
}

private let seed = try! ReleaseSeed(text: "fuzzing seed, not a secret, 32 bytes or more")
/// 2024-06-01T00:00:00Z.
private let windowStart: Int64 = 1_717_200_000_000
private let day: Int64 = 86_400_000

private func checkWindow(of schedule: StoreSchedule, at start: Int64) {
    let store = schedule.store.id
    var chains: [Int64: ReleaseKeyChain] = [:]
    let window = ReleaseWindow(schedule: schedule, start: start) { epoch in
        let chain = ReleaseKeyChain(seed: seed, store: store, epoch: epoch)
        chains[epoch] = chain
        return chain
    }
    law((try? window.verify()) != nil, "a window the server made does not verify")
    law((try? ReleaseWindow(json: window.json)) == window, "a window the server made does not read back")
    for entry in window.entries.prefix(16) {
        let position = entry.position
        guard let chain = chains[position.epoch] else {
            law(false, "a window has an entry of an epoch it took no chain for")
            return
        }
        let scheduled = schedule.entry(slot: entry.slot, at: entry.start).item
        do {
            let opened = try entry.open(store: store, chainKey: chain.key(at: position.index))
            law(opened?.id == scheduled?.id, "a box holds \(opened?.id ?? "nothing"), not the scheduled \(scheduled?.id ?? "nothing")")
            law(opened?.data == scheduled?.data, "a box holds other data than the scheduled item's")
        } catch {
            law(false, "a box does not open with its key: \(error)")
        }
    }
}
