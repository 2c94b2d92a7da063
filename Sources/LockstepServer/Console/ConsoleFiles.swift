import Foundation

/// The console's files (HTML, CSS, JavaScript modules), read into memory once.
///
/// They are the package resource `Console/Files`, which SwiftPM copies beside every binary it
/// builds as `Lockstep_LockstepServer.resources/`. Found there (`swift run`, the test binaries,
/// a release build run in place, or a binary installed with that folder beside it), else in
/// the source checkout this binary was built from. Not through `Bundle.module`: on Linux it
/// stops the process with `fatalError` when neither place holds the files, and a server
/// installed without them should serve everything but its console.
struct ConsoleFiles: Sendable {
    struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
    }

    /// Files by their path below `/console/` (`index.html`, `views/users.js`…).
    let files: [String: File]
    /// Where the files were read from; `nil` when they were found nowhere.
    let directory: URL?

    static let shared = ConsoleFiles.load()

    static var candidates: [URL] {
        let beside = Bundle.main.bundleURL.appendingPathComponent("Lockstep_LockstepServer.resources/Files")
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Files")
        return [beside, source]
    }

    static func load() -> ConsoleFiles {
        let manager = FileManager.default
        guard let directory = candidates.first(where: { manager.fileExists(atPath: $0.appendingPathComponent("index.html").path) }) else {
            return ConsoleFiles(files: [:], directory: nil)
        }
        var files: [String: File] = [:]
        let root = directory.standardizedFileURL.resolvingSymlinksInPath().path
        for case let url as URL in manager.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) ?? FileManager.DirectoryEnumerator() {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                let contentType = contentTypes[url.pathExtension], let data = manager.contents(atPath: url.path)
            else { continue }
            let path = url.standardizedFileURL.resolvingSymlinksInPath().path
            guard path.hasPrefix(root + "/") else { continue }
            files[String(path.dropFirst(root.count + 1))] = File(bytes: Array(data), contentType: contentType)
        }
        return ConsoleFiles(files: files, directory: directory)
    }

    /// Only these kinds are served; anything else in the folder (a stray backup) is not.
    static let contentTypes = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml", "json": "application/json",
    ]
}
