import Foundation

enum ExternalPaths {
    /// The repository's root, found from this file's path (Tests/LockstepClientTests/Support/).
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
