import LockstepCore

/// Where two JSON values differ, for property tests that explain their failures.
enum JSONDifferences {
    static func paths(_ a: JSONValue, _ b: JSONValue, at path: DiffPath = DiffPath()) -> [DiffPath] {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            return Set(x.keys).union(y.keys).flatMap { name -> [DiffPath] in
                let inner = path.appending(member: name)
                guard let left = x[name], let right = y[name] else { return [inner] }
                return paths(left, right, at: inner)
            }
        case (.array(let x), .array(let y)) where x.count == y.count:
            return zip(x, y).enumerated().flatMap { paths($1.0, $1.1, at: path.appending(index: $0)) }
        default:
            return a == b ? [] : [path]
        }
    }

    static func value(at path: DiffPath, in root: JSONValue) -> JSONValue? {
        var current: JSONValue? = root
        for component in path.components {
            switch component {
            case .member(let name): current = current?[name]
            case .index(let index): current = current?[index]
            }
        }
        return current
    }

    /// Whether every one of `values` holds a string at `path` (a text merge happened there).
    static func isStringInAll(_ path: DiffPath, _ values: [JSONValue]) -> Bool {
        values.allSatisfy { value(at: path, in: $0)?.stringValue != nil }
    }
}
