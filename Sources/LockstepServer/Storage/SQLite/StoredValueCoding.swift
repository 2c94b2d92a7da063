package import LockstepCore

/// How stores write JSON values and member stamps into text columns, and read them back.
///
/// Package-wide so that every store (SQLite here, PostgreSQL in its own module) writes the
/// same text for the same value.
package enum StoredValueCoding {
    package static func text(_ object: JSONObject) -> String {
        JSONValue.object(object).description
    }

    package static func object(_ text: String) throws -> JSONObject {
        guard case .object(let members) = try JSONValue(parsing: text) else { throw StoredValueError.notAnObject }
        return members
    }

    package static func text(_ stamps: [String: EditStamp]) -> String {
        JSONValue.object(stamps.mapValues { stamp in
            var fields: JSONObject = ["c": .string(stamp.clientID)]
            if let time = stamp.time { fields["t"] = .integer(time) }
            return .object(fields)
        }).description
    }

    package static func stamps(_ text: String) throws -> [String: EditStamp] {
        try object(text).compactMapValues { value in
            guard case .string(let client)? = value["c"] else { return nil }
            return EditStamp(time: value["t"]?.integerValue, clientID: client)
        }
    }

    package static func text(_ diff: ObjectDiff?) -> String? {
        diff.map(\.jsonText)
    }

    package static func diff(_ text: String?) throws -> ObjectDiff? {
        guard let text else { return nil }
        return try ObjectDiff(json: try JSONValue(parsing: text))
    }
}

enum StoredValueError: Error {
    case notAnObject
}
