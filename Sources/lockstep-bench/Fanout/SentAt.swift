import LockstepCore

/// The send time the fan-out writer stamps on each change, as a new member of its object:
/// `"sentAt":{"o":"+","v":<unix nanoseconds>}`. Subscribers on this machine read it back out of
/// each announcement (or Redis message) against the same wall clock, without parsing the JSON:
/// what a subscriber spends reading is CPU the server under test does not get.
enum SentAt {
    /// The change numbered `number` of a run, stamped `nanoseconds`: a new object `f<number>`.
    static func change(_ number: Int, ccid: String, nanoseconds: Int64) -> JSONValue {
        ["id": .string("f\(number)"), "ccid": .string(ccid), "o": "M", "v": ["sentAt": ["o": "+", "v": .integer(nanoseconds)]]]
    }

    /// Every stamp in `bytes`, in order: one per change a message carries.
    static func stamps(in bytes: UnsafeRawBufferPointer) -> [Int64] {
        var stamps: [Int64] = []
        var index = 0
        while let afterKey = find(key, in: bytes, from: index), let afterValue = find(valueKey, in: bytes, from: afterKey) {
            var value: Int64 = 0
            index = afterValue
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                value = value &* 10 &+ Int64(bytes[index] &- UInt8(ascii: "0"))
                index += 1
            }
            stamps.append(value)
        }
        return stamps
    }

    static func stamps(in text: String) -> [Int64] {
        var text = text
        return text.withUTF8 { stamps(in: UnsafeRawBufferPointer($0)) }
    }

    private static let key = Array(#""sentAt":"#.utf8)
    /// The first `"v":` after the key is the stamp's, whichever order the server wrote the
    /// operation's two members in: `"o":"+"` holds no `"v":`.
    private static let valueKey = Array(#""v":"#.utf8)

    /// The index just past the first `needle` in `bytes` at or after `start`.
    private static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0] {
                var matched = 1
                while matched < needle.count && bytes[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return index + matched }
            }
            index += 1
        }
        return nil
    }
}
