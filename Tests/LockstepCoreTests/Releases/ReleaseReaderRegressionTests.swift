import LockstepCore
import PropertyBased
import Testing

/// Inputs the fuzzers (Fuzz/, see FUZZING.md) found crashing the readers of release windows and
/// keys, kept as they were found (minimized), with the laws their fixes rest on.
@Suite("Releases: what the fuzzers found")
struct ReleaseReaderRegressionTests {
    /// fuzz-release-window: a key whose epoch is past 2.56 × 10¹² overflowed when its release
    /// time was asked (writing it back, verifying a window that carried it).
    @Test func aKeyOfAnEpochPastAnyTimeIsRefused() {
        let found = #"{"epoch":4769992147487,"index":9,"key":"a2487ad737fdca79cef6832e81873cc900035eee956d1125cbc03beb3bb10a6f","store":""}"#
        #expect(throws: ReleaseFormatError.self) { try ReleasedKey(json: JSONValue(parsing: found)) }
        for epoch in [ReleaseTimes.epochs.upperBound + 1, -1, .max, .min] {
            #expect(throws: ReleaseFormatError.self) { try ReleasedKey(json: Self.key(epoch: epoch)) }
        }
        for epoch in [0, 477_000, ReleaseTimes.epochs.upperBound] {
            let key = try? ReleasedKey(json: Self.key(epoch: epoch))
            #expect(key?.time == epoch * 3_600_000 + 9_000)
        }
    }

    /// A window that places itself, an entry or an anchor outside 1970…9999 is refused by the
    /// reader, before anything computes chain positions from its times.
    @Test(arguments: [
        ("start", JSONValue.integer(-1)), ("end", .integer(ReleaseTimes.range.upperBound + 1)),
        ("entryStart", .integer(.min)), ("entryEnd", .integer(.max)), ("anchorEpoch", .integer(-5)),
    ])
    func aWindowOutsideTheTimesIsRefused(field: String, value: JSONValue) throws {
        #expect(throws: Never.self) { try ReleaseWindow(json: Self.window()) }
        #expect(throws: ReleaseFormatError.self) { try ReleaseWindow(json: Self.window(setting: field, to: value)) }
    }

    /// Chain positions are exact for every time, `Int64.min` and `Int64.max` included: the
    /// epoch is the floor of the time over an hour, the index the whole seconds left over.
    @Test func everyTimeHasItsChainPosition() async {
        for time: Int64 in [.min, .min + 1, -1, 0, 1, .max - 1, .max] { Self.checkPosition(at: time) }
        await propertyCheck(input: Gen.int64(in: .min ... .max)) { time in Self.checkPosition(at: time) }
    }

    static func checkPosition(at time: Int64) {
        let position = ChainPosition(releasedAt: time)
        let (epoch, withinEpoch) = floorDivision(Int128(time), by: 3_600_000)
        #expect(Int128(position.epoch) == epoch)
        #expect(Int128(position.index) == withinEpoch / 1000)
    }

    static func floorDivision(_ a: Int128, by b: Int128) -> (quotient: Int128, remainder: Int128) {
        let (quotient, remainder) = a.quotientAndRemainder(dividingBy: b)
        return remainder < 0 ? (quotient - 1, remainder + b) : (quotient, remainder)
    }

    static func key(epoch: Int64) -> JSONValue {
        ["store": "main", "epoch": .integer(epoch), "index": 9, "key": .string(String(repeating: "ab", count: 32))]
    }

    /// A small window that reads; `field` set to `value` where asked.
    static func window(setting field: String? = nil, to value: JSONValue = .null) -> JSONValue {
        func pick(_ name: String, _ otherwise: JSONValue) -> JSONValue { field == name ? value : otherwise }
        let hex = JSONValue.string(String(repeating: "00", count: 32))
        return [
            "format": "lockstep-releases-v1", "store": "main", "slots": 1, "tickMs": 1000, "epochMs": 3_600_000,
            "start": pick("start", 1_717_200_000_000), "end": pick("end", 1_717_200_600_000),
            "anchors": [["epoch": pick("anchorEpoch", 477_000), "anchor": hex]],
            "released": [],
            "entries": [[
                "slot": 0, "start": pick("entryStart", 1_717_200_000_000), "end": pick("entryEnd", 1_717_200_060_000),
                "box": "AAAA", "digest": hex,
            ]],
        ]
    }
}
