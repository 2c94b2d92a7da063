import Foundation

extension ReleaseWindow {
    /// The window's JSON form (described on ``ReleaseWindow``); serialize it with
    /// ``JSONSerializer`` for the same bytes on every node.
    public var json: JSONValue {
        [
            "format": .string(Self.format),
            "store": .string(store),
            "slots": .integer(Int64(slots)),
            "start": .integer(start),
            "end": .integer(end),
            "tickMs": .integer(ReleaseKeyChain.tickMilliseconds),
            "epochMs": .integer(ReleaseKeyChain.epochMilliseconds),
            "anchors": .array(anchors.keys.sorted().map { epoch in
                ["epoch": .integer(epoch), "anchor": .string(Hex.encode(anchors[epoch]!))]
            }),
            "released": .array(released.map(\.json)),
            "entries": .array(entries.map { entry in
                [
                    "slot": .integer(Int64(entry.slot)), "start": .integer(entry.start), "end": .integer(entry.end),
                    "box": .string(Data(entry.box).base64EncodedString()), "digest": .string(Hex.encode(entry.digest)),
                ]
            }),
        ]
    }

    /// Reads a window's JSON form; ``verify()`` then checks what it claims.
    public init(json: JSONValue) throws(ReleaseFormatError) {
        guard json["format"]?.stringValue == Self.format else {
            throw ReleaseFormatError("not a \(Self.format) window (format \(json["format"].map(\.description) ?? "missing"))")
        }
        guard json["tickMs"]?.integerValue == ReleaseKeyChain.tickMilliseconds, json["epochMs"]?.integerValue == ReleaseKeyChain.epochMilliseconds else {
            throw ReleaseFormatError("the window's chain has ticks or epochs this client does not know")
        }
        guard let store = json["store"]?.stringValue, let slots = json["slots"]?.integerValue, (1...Int64(ReleaseConfiguration.maximumSlots)).contains(slots),
            let start = json["start"]?.integerValue, let end = json["end"]?.integerValue, start < end,
            ReleaseTimes.range.contains(start), ReleaseTimes.range.contains(end),
            let anchorValues = json["anchors"]?.arrayValue, let releasedValues = json["released"]?.arrayValue,
            let entryValues = json["entries"]?.arrayValue
        else { throw ReleaseFormatError("a window needs store, slots, start and end (times from 1970 to 9999), anchors, released and entries") }

        var anchors: [Int64: [UInt8]] = [:]
        for value in anchorValues {
            guard let epoch = value["epoch"]?.integerValue, ReleaseTimes.epochs.contains(epoch),
                let anchor = value["anchor"]?.stringValue.flatMap(Hex.decode), anchor.count == 32
            else {
                throw ReleaseFormatError("an anchor needs an epoch (0 to \(ReleaseTimes.epochs.upperBound)) and a 32-byte hex anchor")
            }
            anchors[epoch] = anchor
        }
        var released: [ReleasedKey] = []
        for value in releasedValues { released.append(try ReleasedKey(json: value)) }
        var entries: [SealedEntry] = []
        for value in entryValues {
            guard let slot = value["slot"]?.integerValue, let entryStart = value["start"]?.integerValue, let entryEnd = value["end"]?.integerValue,
                ReleaseTimes.range.contains(entryStart), ReleaseTimes.range.contains(entryEnd),
                let box = value["box"]?.stringValue.flatMap({ Data(base64Encoded: $0) }),
                let digest = value["digest"]?.stringValue.flatMap(Hex.decode), digest.count == 32
            else { throw ReleaseFormatError("an entry needs slot, start and end (times from 1970 to 9999), a base64 box and a 32-byte hex digest") }
            entries.append(SealedEntry(slot: Int(slot), start: entryStart, end: entryEnd, box: Array(box), digest: digest))
        }
        self.init(store: store, slots: Int(slots), start: start, end: end, anchors: anchors, released: released, entries: entries)
    }
}
