/// A key of a store's chain, as the key endpoint and windows publish it once its time has come.
///
/// JSON (times in milliseconds since the Unix epoch, server time; `key` in hex):
/// `{"epoch":477000,"index":20,"key":"9f…","store":"main","time":1717200020000}`
public struct ReleasedKey: Sendable, Hashable {
    public var store: String
    public var position: ChainPosition
    /// 32 bytes.
    public var key: [UInt8]

    public init(store: String, position: ChainPosition, key: [UInt8]) {
        self.store = store
        self.position = position
        self.key = key
    }

    /// When the key was released.
    public var time: Int64 { position.releaseTime }

    /// The key at `earlier`, which this key opens when it is of the same epoch and not before it.
    public func key(at earlier: ChainPosition) -> [UInt8]? {
        guard earlier.epoch == position.epoch, earlier.index <= position.index else { return nil }
        return ReleaseKeyChain.earlier(key, by: position.index - earlier.index)
    }

    /// Whether the key belongs to the chain with this anchor, at its position.
    public func verify(anchor: [UInt8]) -> Bool {
        ReleaseKeyChain.verify(key, index: position.index, anchor: anchor)
    }

    public var json: JSONValue {
        [
            "store": .string(store), "epoch": .integer(position.epoch), "index": .integer(Int64(position.index)),
            "time": .integer(time), "key": .string(Hex.encode(key)),
        ]
    }

    public init(json: JSONValue) throws(ReleaseFormatError) {
        guard let store = json["store"]?.stringValue, let epoch = json["epoch"]?.integerValue, ReleaseTimes.epochs.contains(epoch),
            let index = json["index"]?.integerValue, (0..<Int64(ReleaseKeyChain.length)).contains(index),
            let key = json["key"]?.stringValue.flatMap(Hex.decode), key.count == 32
        else {
            throw ReleaseFormatError(
                "a released key needs store, epoch (0 to \(ReleaseTimes.epochs.upperBound)), index (0 to \(ReleaseKeyChain.length - 1)) and a 32-byte hex key")
        }
        self.init(store: store, position: ChainPosition(epoch: epoch, index: Int(index)), key: key)
    }
}
