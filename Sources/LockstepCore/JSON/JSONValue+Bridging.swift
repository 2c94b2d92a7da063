import Foundation

extension JSONValue {
    /// The JSON form of any `Encodable` value, through `JSONEncoder`.
    public init(encoding value: some Encodable) throws {
        let data = try JSONEncoder().encode(value)
        self = try JSONValue(parsing: data)
    }

    /// Decodes a `Decodable` type from this value, through `JSONDecoder`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(jsonBytes))
    }
}
