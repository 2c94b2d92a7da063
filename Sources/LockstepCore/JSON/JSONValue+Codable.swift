/// `JSONValue` encodes and decodes as the JSON it holds, so it can sit inside any `Codable`
/// type, and ``JSONValue/init(encoding:)`` / ``JSONValue/decode(_:)`` bridge typed models.
extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !array.isAtEnd { elements.append(try array.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var members = JSONObject()
            for key in object.allKeys { members[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(members)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let flag = try? single.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? single.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? single.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let flag):
            var single = encoder.singleValueContainer()
            try single.encode(flag)
        case .integer(let integer):
            var single = encoder.singleValueContainer()
            try single.encode(integer)
        case .number(let number):
            var single = encoder.singleValueContainer()
            try single.encode(number)
        case .string(let text):
            var single = encoder.singleValueContainer()
            try single.encode(text)
        case .array(let elements):
            var array = encoder.unkeyedContainer()
            for element in elements { try array.encode(element) }
        case .object(let members):
            var object = encoder.container(keyedBy: AnyCodingKey.self)
            for (name, member) in members { try object.encode(member, forKey: AnyCodingKey(name)) }
        }
    }
}

struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
