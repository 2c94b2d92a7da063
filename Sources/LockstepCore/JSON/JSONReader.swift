/// The cursor that walks UTF-8 bytes for ``JSONParser``.
struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case .space, .tab, .newline, .carriageReturn: position += 1
            default: return
            }
        }
    }

    mutating func readValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[position] {
        case .openBrace: return try readObject(depth: depth + 1)
        case .openBracket: return try readArray(depth: depth + 1)
        case .quote: return .string(try readString())
        case .minus, .zero ... .nine: return try readNumber()
        case .letterT: try expectWord("true"); return .bool(true)
        case .letterF: try expectWord("false"); return .bool(false)
        case .letterN: try expectWord("null"); return .null
        default: throw error("unexpected \(describe(bytes[position])), expected a value")
        }
    }

    private mutating func readObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
        position += 1
        var members = JSONObject()
        skipWhitespace()
        if position < bytes.count, bytes[position] == .closeBrace {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == .quote else {
                throw error("expected a member name in double quotes")
            }
            let name = try readString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == .colon else {
                throw error("expected ':' after the member name \"\(name)\"")
            }
            position += 1
            skipWhitespace()
            members[name] = try readValue(depth: depth)
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input inside an object") }
            switch bytes[position] {
            case .comma:
                position += 1
            case .closeBrace:
                position += 1
                return .object(members)
            default:
                throw error("expected ',' or '}' after an object member")
            }
        }
    }

    private mutating func readArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == .closeBracket {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try readValue(depth: depth))
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input inside an array") }
            switch bytes[position] {
            case .comma:
                position += 1
            case .closeBracket:
                position += 1
                return .array(elements)
            default:
                throw error("expected ',' or ']' after an array element")
            }
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw error("unexpected end of input, expected \(word)") }
        for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] {
            throw error("unexpected \(describe(bytes[position + offset])), expected \(word)")
        }
        position += count
    }

    // MARK: Numbers

    private mutating func readNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        var isInteger = true
        if bytes[position] == .minus { position += 1 }
        guard position < bytes.count, (.zero ... .nine).contains(bytes[position]) else {
            throw error("expected a digit in a number")
        }
        if bytes[position] == .zero {
            position += 1
            if position < bytes.count, (.zero ... .nine).contains(bytes[position]) {
                throw error("a number may not start with a leading zero")
            }
        } else {
            skipDigits()
        }
        if position < bytes.count, bytes[position] == .period {
            isInteger = false
            position += 1
            guard skipDigits() > 0 else { throw error("expected a digit after the decimal point") }
        }
        if position < bytes.count, bytes[position] == .letterE || bytes[position] == .letterCapitalE {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == .plus || bytes[position] == .minus { position += 1 }
            guard skipDigits() > 0 else { throw error("expected a digit in the exponent") }
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if isInteger, let integer = Int64(literal) { return .integer(integer) }
        guard let number = Double(literal), number.isFinite else {
            throw error("the number \(literal) is out of range", at: start)
        }
        return .number(number)
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = position
        while position < bytes.count, (.zero ... .nine).contains(bytes[position]) { position += 1 }
        return position - start
    }

    // MARK: Strings

    /// Reads a string starting at its opening quote.
    mutating func readString() throws(JSONParseError) -> String {
        position += 1
        let start = position
        // Fast path: most strings have no escapes and can be validated and copied in one go.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == .quote {
                let text = try decodeUTF8(start..<position)
                position += 1
                return text
            }
            if byte == .backslash { break }
            if byte < 0x20 { throw error("control character \(describe(byte)) in a string must be escaped") }
            position += 1
        }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: try decodeUTF8(start..<position).unicodeScalars)
        return try readEscapedRemainder(into: scalars)
    }

    private mutating func readEscapedRemainder(into text: String.UnicodeScalarView) throws(JSONParseError) -> String {
        var text = text
        var runStart = position
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case .quote:
                text.append(contentsOf: try decodeUTF8(runStart..<position).unicodeScalars)
                position += 1
                return String(text)
            case .backslash:
                text.append(contentsOf: try decodeUTF8(runStart..<position).unicodeScalars)
                text.append(try readEscape())
                runStart = position
            case 0..<0x20:
                throw error("control character \(describe(byte)) in a string must be escaped")
            default:
                position += 1
            }
        }
        throw error("unexpected end of input inside a string")
    }

    /// Reads one escape sequence starting at its backslash.
    private mutating func readEscape() throws(JSONParseError) -> Unicode.Scalar {
        let escapeStart = position
        position += 1
        guard position < bytes.count else { throw error("unexpected end of input inside a string") }
        let code = bytes[position]
        position += 1
        switch code {
        case .quote: return "\""
        case .backslash: return "\\"
        case .slash: return "/"
        case .letterB: return "\u{08}"
        case .letterF: return "\u{0C}"
        case .letterN: return "\n"
        case .letterR: return "\r"
        case .letterT: return "\t"
        case .letterU:
            let unit = try readHexQuad()
            if UTF16.isTrailSurrogate(unit) {
                throw error("lone surrogate \\u\(hex(unit)) in a string", at: escapeStart)
            }
            if UTF16.isLeadSurrogate(unit) {
                guard position + 1 < bytes.count, bytes[position] == .backslash, bytes[position + 1] == .letterU else {
                    throw error("lone surrogate \\u\(hex(unit)) in a string", at: escapeStart)
                }
                position += 2
                let trail = try readHexQuad()
                guard UTF16.isTrailSurrogate(trail) else {
                    throw error("lone surrogate \\u\(hex(unit)) in a string", at: escapeStart)
                }
                let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(trail) - 0xDC00)
                return Unicode.Scalar(value)!
            }
            return Unicode.Scalar(UInt32(unit))!
        default:
            let shown = code >= 0x20 && code < 0x7F ? "\\" + String(Unicode.Scalar(code)) : describe(code)
            throw error("invalid escape sequence \(shown) in a string", at: escapeStart)
        }
    }

    private mutating func readHexQuad() throws(JSONParseError) -> UInt16 {
        guard position + 4 <= bytes.count else { throw error("unexpected end of input in a \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case .zero ... .nine: digit = byte - .zero
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected four hexadecimal digits in a \\u escape")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    private func decodeUTF8(_ range: Range<Int>) throws(JSONParseError) -> String {
        let utf8 = UnsafeBufferPointer(rebasing: bytes[range])
        // ASCII is valid UTF-8 as it is: made directly, it costs a few instructions a byte,
        // where the generic validating initializer costs some 900 a string (callgrind).
        if utf8.allSatisfy({ $0 < 0x80 }) { return String(decoding: utf8, as: UTF8.self) }
        guard let text = String(validating: utf8, as: UTF8.self) else {
            throw error("invalid UTF-8 in a string", at: range.lowerBound)
        }
        return text
    }

    // MARK: Errors

    func error(_ message: String, at offset: Int? = nil) -> JSONParseError {
        let offset = min(offset ?? position, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<offset where bytes[index] == .newline {
            line += 1
            lineStart = index + 1
        }
        return JSONParseError(message: message, offset: offset, line: line, column: offset - lineStart + 1)
    }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private func hex(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}

extension UInt8 {
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let newline = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let slash = UInt8(ascii: "/")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let period = UInt8(ascii: ".")
    fileprivate static let plus = UInt8(ascii: "+")
    fileprivate static let minus = UInt8(ascii: "-")
    fileprivate static let zero = UInt8(ascii: "0")
    fileprivate static let nine = UInt8(ascii: "9")
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")
    fileprivate static let openBracket = UInt8(ascii: "[")
    fileprivate static let closeBracket = UInt8(ascii: "]")
    fileprivate static let letterB = UInt8(ascii: "b")
    fileprivate static let letterE = UInt8(ascii: "e")
    fileprivate static let letterCapitalE = UInt8(ascii: "E")
    fileprivate static let letterF = UInt8(ascii: "f")
    fileprivate static let letterN = UInt8(ascii: "n")
    fileprivate static let letterR = UInt8(ascii: "r")
    fileprivate static let letterT = UInt8(ascii: "t")
    fileprivate static let letterU = UInt8(ascii: "u")
}
