/// The naming rule of spaces, as the server enforces it, checked here too: a bucket of a
/// space with a bad name would be refused when its channel opens, and this client's sync
/// would stop on the refusal.
enum SpaceName {
    static let maximumLength = 64

    /// 1 to 64 of `a-z 0-9 _ -`, beginning with a letter or digit.
    static func validate(_ name: String) throws(SpaceError) {
        let bytes = name.utf8
        guard let first = bytes.first, bytes.count <= maximumLength, isLetterOrDigit(first),
            bytes.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else {
            throw .invalid(
                "\"\(name.prefix(80))\" is not a valid space name: use 1 to \(maximumLength) of a-z 0-9 _ -, beginning with a letter or digit")
        }
    }

    /// The name of the bucket `bucket` of space `space` on the wire: `__<space>.<bucket>`.
    static func bucketName(space: String, bucket: String) -> String {
        "__\(space).\(bucket)"
    }

    /// The space a bucket name belongs to; `nil` for a user's own (or an app-wide) bucket.
    static func space(ofBucket bucket: String) -> String? {
        guard bucket.hasPrefix("__"), let dot = bucket.firstIndex(of: ".") else { return nil }
        return String(bucket[bucket.index(bucket.startIndex, offsetBy: 2)..<dot])
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
