extension TextDiff {
    /// The edits in diff-match-patch's delta format, the `v` of a Simperium `d` operation.
    ///
    /// Tab-separated tokens: `=N` keeps N code units of the source, `-N` deletes N, and `+text`
    /// inserts text. Counts are UTF-16 code units, as in JavaScript, Java and `NSString`, so an
    /// emoji counts 2. Inserted text is escaped like JavaScript's `encodeURI`, except that
    /// spaces stay spaces: `"=1\t+%C3%A9 b%0A%25#"` inserts `"é b\n%#"` after one unit.
    public var delta: String {
        var bytes: [UInt8] = []
        for (index, edit) in edits.enumerated() {
            if index > 0 {
                bytes.append(UInt8(ascii: "\t"))
            }
            switch edit.operation {
            case .equal:
                bytes += "=\(edit.utf16Count)".utf8
            case .delete:
                bytes += "-\(edit.utf16Count)".utf8
            case .insert:
                bytes.append(UInt8(ascii: "+"))
                DeltaEscaping.escape(edit.scalars, into: &bytes)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a delta against the text it was made from (diff-match-patch's `diff_fromDelta`).
    ///
    /// Empty tokens are skipped, as diff-match-patch does, so a trailing tab is harmless.
    ///
    /// - Throws: ``TextDeltaError`` if a token is malformed, if an escape does not decode to
    ///   UTF-8, if the counts do not add up to the UTF-16 length of `source`, or if a count
    ///   ends in the middle of a surrogate pair.
    public init(delta: String, source: String) throws(TextDeltaError) {
        let tokens = try DeltaToken.parse(delta)

        let sourceScalars = source.scalarValues
        let sourceLength = sourceScalars.utf16Count
        // Saturating, so that absurd counts report a mismatch instead of overflowing.
        let deltaLength = tokens.reduce(0) { total, token in
            let (sum, overflow) = total.addingReportingOverflow(token.count)
            return overflow ? Int.max : sum
        }
        guard deltaLength == sourceLength else {
            throw TextDeltaError(.lengthMismatch(deltaLength: deltaLength, sourceLength: sourceLength))
        }

        var edits: [TextEdit] = []
        edits.reserveCapacity(tokens.count)
        var scalarIndex = 0
        var utf16Offset = 0
        for token in tokens {
            switch token {
            case .insert(let scalars):
                if !scalars.isEmpty {
                    edits.append(TextEdit(.insert, scalars: scalars))
                }
            case .keep(let count), .delete(let count):
                // Counts add up to the source length, so the source cannot run out here.
                let start = scalarIndex
                scalarIndex = try sourceScalars.index(advancingUTF16: count, from: start, at: utf16Offset)
                utf16Offset += count
                if count > 0 {
                    let operation: TextEdit.Operation = if case .keep = token { .equal } else { .delete }
                    edits.append(TextEdit(operation, scalars: sourceScalars[start ..< scalarIndex]))
                }
            }
        }
        self.init(edits)
    }
}

extension [UInt32] {
    /// The index `count` UTF-16 code units after `start`, where the text is at `utf16Offset`
    /// UTF-16 code units: a scalar above U+FFFF counts two.
    ///
    /// - Throws: ``TextDeltaError`` when the count ends between the two halves of a pair.
    func index(advancingUTF16 count: Int, from start: Int, at utf16Offset: Int) throws(TextDeltaError) -> Int {
        var end = start
        var consumed = 0
        while consumed < count {
            consumed += self[end] > 0xFFFF ? 2 : 1
            end += 1
        }
        guard consumed == count else {
            throw TextDeltaError(.splitsSurrogatePair(utf16Offset: utf16Offset + count))
        }
        return end
    }
}

/// One token of a delta.
enum DeltaToken {
    case keep(Int)
    case delete(Int)
    case insert([UInt32])

    /// How many UTF-16 code units of the source the token covers.
    var count: Int {
        switch self {
        case .keep(let count), .delete(let count): count
        case .insert: 0
        }
    }

    static func parse(_ delta: String) throws(TextDeltaError) -> [DeltaToken] {
        var tokens: [DeltaToken] = []
        for token in delta.utf8.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: true) {
            let body = token.dropFirst()
            switch token.first {
            case UInt8(ascii: "+"):
                guard let bytes = DeltaEscaping.unescape(body) else {
                    throw TextDeltaError(.invalidEscape(token: excerpt(token)))
                }
                guard let text = decodeUTF8(bytes) else {
                    throw TextDeltaError(.invalidUTF8(token: excerpt(token)))
                }
                tokens.append(.insert(text))
            case UInt8(ascii: "="), UInt8(ascii: "-"):
                guard let count = parseCount(body) else {
                    throw TextDeltaError(.invalidCount(token: excerpt(token)))
                }
                tokens.append(token.first == UInt8(ascii: "=") ? .keep(count) : .delete(count))
            default:
                throw TextDeltaError(.unknownOperation(token: excerpt(token)))
            }
        }
        return tokens
    }

    /// A count: ASCII digits only, unlike JavaScript's `parseInt`, which reads `"5abc"` as 5.
    private static func parseCount(_ digits: Substring.UTF8View) -> Int? {
        guard !digits.isEmpty else { return nil }
        var value = 0
        for digit in digits {
            guard UInt8(ascii: "0") ... UInt8(ascii: "9") ~= digit else { return nil }
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = shifted.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
            guard !overflowed && !overflowedAgain else { return nil }
            value = sum
        }
        return value
    }

    /// The scalar values of strict UTF-8 (no surrogates, no overlong forms), or `nil`.
    private static func decodeUTF8(_ bytes: [UInt8]) -> [UInt32]? {
        var scalars: [UInt32] = []
        scalars.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar.value)
            case .emptyInput: return scalars
            case .error: return nil
            }
        }
    }

    /// The start of a token, short enough for an error message.
    private static func excerpt(_ token: Substring.UTF8View) -> String {
        let limit = 40
        let text = String(decoding: token.prefix(limit), as: UTF8.self)
        return token.count > limit ? text + "…" : text
    }
}
