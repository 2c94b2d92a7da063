import LockstepCore

/// How stores write JSON values and member stamps into text columns, and read them back.
enum StoredValueCoding {
    static func text(_ object: JSONObject) -> String {
        JSONValue.object(object).description
    }

    static func object(_ text: String) throws -> JSONObject {
        guard case .object(let members) = try JSONValue(parsing: text) else { throw StoredValueError.notAnObject }
        return members
    }

    static func text(_ stamps: [String: EditStamp]) -> String {
        JSONValue.object(stamps.mapValues { stamp in
            var fields: JSONObject = ["c": .string(stamp.clientID)]
            if let time = stamp.time { fields["t"] = .integer(time) }
            return .object(fields)
        }).description
    }

    static func stamps(_ text: String) throws -> [String: EditStamp] {
        try object(text).compactMapValues { value in
            guard case .string(let client)? = value["c"] else { return nil }
            return EditStamp(time: value["t"]?.integerValue, clientID: client)
        }
    }

    static func text(_ diff: ObjectDiff?) -> String? {
        diff.map { $0.json.description }
    }

    static func diff(_ text: String?) throws -> ObjectDiff? {
        guard let text else { return nil }
        return try ObjectDiff(json: try JSONValue(parsing: text))
    }
}

enum StoredValueError: Error {
    case notAnObject
}
