@testable import ClientParsers
import FuzzSupport
@testable import LockstepCore

@main enum FuzzReleaseWindow {
    static func main() { runFuzzer { data, count in fuzzReleaseWindow(data, count) } }
}

/// What a client reads from the release endpoints: a window (`GET …/window`) or a released
/// key, then checks and takes into its ledger, and shows slot by slot.
///
/// Input: a window's or a key's JSON. The seeds are real windows, so that mutations keep most
/// digests and chains valid. Each window is also taken a second time as a forger would make it:
/// a digest is a hash, not a signature, and an anchor is the hash of a key, so anyone between
/// the server and the client (a CDN, a proxy) can make any window verify. That one reaches the
/// ledger whatever the fuzzer did to its times and slots.
///
/// Laws: a window writes back to the same window; a ledger takes exactly the windows that
/// verify, and answers every question about every moment a window mentions.
func fuzzReleaseWindow(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let json = try? JSONValue(parsing: FuzzInput(data, count).bytes) else { return 0 }
    if let key = try? ReleasedKey(json: json) {
        law((try? ReleasedKey(json: key.json)) == key, "a released key does not read back")
        var ledger = ReleaseLedger(store: key.store)
        ledger.accept(key)
        _ = ledger.missingKeys(at: key.time)
    }
    guard let window = try? ReleaseWindow(json: json) else { return 0 }
    law((try? ReleaseWindow(json: window.json)) == window, "a window does not read back")
    take(window)
    take(forged(window))
    return 0
}

private func take(_ window: ReleaseWindow) {
    var ledger = ReleaseLedger(store: window.store)
    let verified = (try? window.verify()) != nil
    let merged = (try? ledger.merge(window)) != nil
    law(merged == verified, "the ledger took a window that does not verify, or refused one that does")
    var moments = [window.start, window.end]
    for entry in window.entries { moments += [entry.start, entry.start &- 1, entry.end, entry.end &- 1] }
    for key in window.released { moments.append(key.time) }
    for moment in moments.prefix(64) {
        _ = ledger.snapshot(at: moment)
        _ = ledger.missingKeys(at: moment)
    }
    for key in window.released { ledger.accept(key) }
    if let moment = moments.last { ledger.forget(before: moment) }
    _ = ledger.snapshot(at: window.start)
}

/// The window with every digest and anchor made to match, as anyone can make them.
private func forged(_ window: ReleaseWindow) -> ReleaseWindow {
    var forged = window
    forged.entries = window.entries.map { entry in
        var entry = entry
        entry.digest = SealedItem.digest(associatedData: entry.associatedData(store: window.store), box: entry.box)
        return entry
    }
    for key in window.released where key.store == window.store {
        forged.anchors[key.position.epoch] = ReleaseKeyChain.earlier(key.key, by: key.position.index + 1)
    }
    return forged
}
