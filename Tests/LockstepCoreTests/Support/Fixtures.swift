import Foundation

/// Test data shipped beside the tests.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// The team's shared folder beside the project's root, when this checkout has one.
    static let sharedDirectory: URL? = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<6 {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("shared/protocol")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate.deletingLastPathComponent() }
        }
        return nil
    }()
}
