import Crypto

/// Where a key sits in time: the epoch (hour) and the tick (second) within it.
public struct ChainPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var epoch: Int64
    public var index: Int

    public init(epoch: Int64, index: Int) {
        self.epoch = epoch
        self.index = index
    }

    /// The position whose key is released at `time`, or the latest one released before it
    /// (milliseconds since the Unix epoch).
    public init(releasedAt time: Int64) {
        epoch = Self.floorDivide(time, ReleaseKeyChain.epochMilliseconds)
        // From the remainder, not `time − epoch × epochMilliseconds`: near `Int64.min` the
        // product no longer fits.
        index = Int(Self.floorModulo(time, ReleaseKeyChain.epochMilliseconds) / ReleaseKeyChain.tickMilliseconds)
    }

    /// When this position's key is released, in milliseconds since the Unix epoch.
    public var releaseTime: Int64 {
        epoch * ReleaseKeyChain.epochMilliseconds + Int64(index) * ReleaseKeyChain.tickMilliseconds
    }

    public static func < (a: ChainPosition, b: ChainPosition) -> Bool {
        (a.epoch, a.index) < (b.epoch, b.index)
    }

    public var description: String { "\(epoch)/\(index)" }

    /// `⌊a / b⌋` for a positive `b`, for every `a`: negating `a`, as this once did, overflows
    /// at `Int64.min`.
    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let (quotient, remainder) = a.quotientAndRemainder(dividingBy: b)
        return remainder < 0 ? quotient - 1 : quotient
    }

    /// `a − b⌊a / b⌋`, in `0..<b`, for a positive `b`.
    static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
        let remainder = a % b
        return remainder < 0 ? remainder + b : remainder
    }
}

/// One store's hash chain for one epoch: the keys that open its items, released one a second.
///
/// The chain has ``length`` (3600) keys per epoch of one hour, key *i* released at
/// `epoch start + i seconds`. The last key is derived from the seed (``ReleaseSeed``); every
/// other is the SHA-256 of the next: `key[i] = SHA-256(key[i + 1])`. So a released key opens
/// every earlier key of its epoch, and nothing of a later one. The chain's ``anchor`` is
/// `SHA-256(key[0])`: published in every window, it lets a client check any key it is given
/// by hashing it `index + 1` times.
///
/// At each hour a new chain starts, with a new anchor, derived afresh from the seed: a key of
/// one epoch says nothing about another. A client that missed the end of an epoch fetches
/// that epoch's last key (released at the epoch's last second) or any other late one.
public struct ReleaseKeyChain: Sendable {
    /// Keys are released on whole seconds.
    public static let tickMilliseconds: Int64 = 1000
    /// A chain covers one hour.
    public static let epochMilliseconds: Int64 = 3_600_000
    /// Keys per chain.
    public static let length = Int(epochMilliseconds / tickMilliseconds)

    public let store: String
    public let epoch: Int64
    /// `SHA-256(key[0])`: the public commitment to the whole chain.
    public let anchor: [UInt8]
    private let keys: [UInt8]

    /// Computes the whole chain (3600 hashes, about a millisecond).
    public init(seed: ReleaseSeed, store: String, epoch: Int64) {
        self.store = store
        self.epoch = epoch
        var keys = [UInt8](repeating: 0, count: Self.length * 32)
        var key = seed.chainHead(store: store, epoch: epoch)
        for index in stride(from: Self.length - 1, through: 0, by: -1) {
            keys.replaceSubrange(index * 32..<(index + 1) * 32, with: key)
            key = Self.hash(key)
        }
        self.keys = keys
        self.anchor = key
    }

    /// The key released at `index`.
    public func key(at index: Int) -> [UInt8] {
        precondition((0..<Self.length).contains(index), "a chain index is from 0 to \(Self.length - 1)")
        return Array(keys[index * 32..<(index + 1) * 32])
    }

    /// The key `steps` places before `key`.
    public static func earlier(_ key: [UInt8], by steps: Int) -> [UInt8] {
        var key = key
        for _ in 0..<steps { key = hash(key) }
        return key
    }

    /// Whether `key` is the key at `index` of the chain whose anchor is `anchor`.
    public static func verify(_ key: [UInt8], index: Int, anchor: [UInt8]) -> Bool {
        guard key.count == 32, (0..<length).contains(index) else { return false }
        return earlier(key, by: index + 1) == anchor
    }

    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }
}
