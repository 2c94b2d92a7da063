/// Why a configuration file was refused, and where: `store.json:12: stores[0].slots: must be
/// between 1 and 1000`.
public struct ReleaseConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var fileName: String
    public var line: Int
    /// The field at fault, `nil` when the file is not JSON at all.
    public var path: JSONPath?
    public var message: String

    public var description: String {
        guard let path else { return "\(fileName):\(line): \(message)" }
        return "\(fileName):\(line): \(path): \(message)"
    }
}

/// The members of one JSON object of a configuration file, read field by field with errors
/// that name the field and its line.
struct ConfigFields {
    let members: JSONObject
    let path: JSONPath
    let document: ConfigDocument

    /// Refuses members this object does not know, so that a misspelt field is not silently ignored.
    func requireOnly(_ names: Set<String>) throws(ReleaseConfigurationError) {
        for name in members.keys.sorted() where !names.contains(name) {
            throw document.error(path / name, "unknown field; expected one of \(names.sorted().joined(separator: ", "))")
        }
    }

    func has(_ name: String) -> Bool { members[name] != nil }

    func string(_ name: String) throws(ReleaseConfigurationError) -> String? {
        guard let value = members[name] else { return nil }
        guard let text = value.stringValue else { throw document.error(path / name, "must be a string, not \(value.typeName)") }
        return text
    }

    func requiredString(_ name: String) throws(ReleaseConfigurationError) -> String {
        guard let text = try string(name) else { throw document.error(path, "needs a field \"\(name)\"") }
        return text
    }

    /// A name as URLs and buckets take it.
    func requiredName(_ name: String) throws(ReleaseConfigurationError) -> String {
        let text = try requiredString(name)
        guard Self.isValidName(text) else {
            throw document.error(path / name, "\"\(text)\" is not a valid name: use 1 to 256 of a-z A-Z 0-9 . _ % @ -")
        }
        return text
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws(ReleaseConfigurationError) -> Int? {
        guard let value = members[name] else { return nil }
        guard let integer = value.integerValue, range.contains(Int(clamping: integer)), Int64(Int(clamping: integer)) == integer else {
            throw document.error(path / name, "must be a whole number between \(range.lowerBound) and \(range.upperBound)")
        }
        return Int(integer)
    }

    func number(_ name: String, in range: ClosedRange<Double>) throws(ReleaseConfigurationError) -> Double? {
        guard let value = members[name] else { return nil }
        guard let number = value.doubleValue, range.contains(number) else {
            throw document.error(path / name, "must be a number between \(Self.show(range.lowerBound)) and \(Self.show(range.upperBound))")
        }
        return number
    }

    func strings(_ name: String) throws(ReleaseConfigurationError) -> [String]? {
        guard let value = members[name] else { return nil }
        guard let elements = value.arrayValue else { throw document.error(path / name, "must be an array of strings, not \(value.typeName)") }
        var texts: [String] = []
        for (index, element) in elements.enumerated() {
            guard let text = element.stringValue else { throw document.error(path / name / index, "must be a string, not \(element.typeName)") }
            texts.append(text)
        }
        return texts
    }

    /// A date or time in UTC: `2025-10-31`, `2025-10-31T18:00:00Z` or with an offset `+02:00`.
    func date(_ name: String) throws(ReleaseConfigurationError) -> Int64? {
        guard let text = try string(name) else { return nil }
        guard let milliseconds = CalendarTime.milliseconds(parsing: text) else {
            throw document.error(path / name, "\"\(text)\" is not a date like 2025-10-31 or 2025-10-31T18:00:00Z")
        }
        return milliseconds
    }

    func object(_ name: String) throws(ReleaseConfigurationError) -> ConfigFields? {
        guard let value = members[name] else { return nil }
        return try document.fields(value, at: path / name)
    }

    /// The elements of an array field with their paths.
    func array(_ name: String) throws(ReleaseConfigurationError) -> [(value: JSONValue, path: JSONPath)]? {
        guard let value = members[name] else { return nil }
        guard let elements = value.arrayValue else { throw document.error(path / name, "must be an array, not \(value.typeName)") }
        return elements.enumerated().map { (index, element) in (element, path / name / index) }
    }

    func error(_ name: String?, _ message: String) -> ReleaseConfigurationError {
        document.error(name.map { path / $0 } ?? path, message)
    }

    static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        return !bytes.isEmpty && bytes.count <= 256 && bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "%"), UInt8(ascii: "@"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }

    private static func show(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}

/// A parsed configuration file: its values and where they are.
struct ConfigDocument {
    let fileName: String
    let located: LocatedJSON

    func fields(_ value: JSONValue, at path: JSONPath) throws(ReleaseConfigurationError) -> ConfigFields {
        guard let members = value.objectValue else { throw error(path, "must be an object, not \(value.typeName)") }
        return ConfigFields(members: members, path: path, document: self)
    }

    /// An error at `path`, on the line of its value or, for a missing field, of the nearest
    /// enclosing value.
    func error(_ path: JSONPath, _ message: String) -> ReleaseConfigurationError {
        var probe = path
        while located.locations[probe] == nil, !probe.components.isEmpty { probe.components.removeLast() }
        return ReleaseConfigurationError(fileName: fileName, line: located.locations[probe]?.line ?? 1, path: path, message: message)
    }
}
