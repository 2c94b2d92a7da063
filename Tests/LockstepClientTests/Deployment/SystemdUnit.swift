import Foundation

/// A systemd unit file read as systemd reads the parts the tests use: sections of `Key=value`
/// lines, `#` and `;` comments, a key given again adding to it.
struct SystemdUnit {
    let path: String
    private let entries: [(section: String, key: String, value: String)]

    init(path: String) throws {
        self.path = path
        var section = ""
        var entries: [(String, String, String)] = []
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
            } else if let equals = line.firstIndex(of: "=") {
                entries.append((section, line[..<equals].trimmingCharacters(in: .whitespaces), line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)))
            }
        }
        self.entries = entries
    }

    /// Every value of `key` in `section`, in order, with the instance name put in for `%i`.
    func values(_ key: String, in section: String = "Service", instance: String) -> [String] {
        entries.filter { $0.section == section && $0.key == key }.map { $0.value.replacingOccurrences(of: "%i", with: instance) }
    }

    /// The one value of `key`, or `nil`.
    func value(_ key: String, in section: String = "Service", instance: String = "") -> String? {
        values(key, in: section, instance: instance).last
    }

    /// The environment the unit gives an instance: `Environment=` assignments, then each
    /// `EnvironmentFile=` in order (a `-` before its path: it may be missing), later ones winning.
    /// Files are read at `place(path)`, where a test keeps them.
    func environment(instance: String, place: (String) -> String) throws -> [String: String] {
        var environment: [String: String] = [:]
        for assignment in values("Environment", instance: instance).flatMap({ $0.split(separator: " ") }) {
            let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { environment[parts[0]] = parts[1] }
        }
        for file in values("EnvironmentFile", instance: instance) {
            let optional = file.hasPrefix("-")
            let path = place(optional ? String(file.dropFirst()) : file)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                if optional { continue }
                throw SystemdUnitError("the unit's EnvironmentFile \(file) is missing")
            }
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2 { environment[parts[0]] = parts[1] }
            }
        }
        return environment
    }
}

struct SystemdUnitError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
