import Crypto
import Foundation
import LockstepCore

/// lockstep.js as the server serves it: the modules of `Clients/JavaScript/src`, read into
/// memory once, each with its ETag, under one version that names their bytes.
///
/// The modules live in this target's folder (`SDK/JavaScript`), so that SwiftPM copies them
/// beside every binary as a resource (`Lockstep_LockstepServer.resources/JavaScript`);
/// `Clients/JavaScript/src` is a symbolic link to this folder, so the files the JavaScript
/// tests run are the files served, byte for byte. Found beside the binary, else in
/// the source checkout it was built from, as ``ConsoleFiles`` are.
///
/// The version is the package's (`version.js`) and the first 12 hexadecimal digits of a
/// SHA-256 over every file's path and bytes: a URL that names a version never serves other
/// bytes, so it may be cached for good, also while the package's version stays the same
/// between releases.
struct SDKFiles: Sendable {
    struct File: Sendable {
        let bytes: [UInt8]
        /// A strong validator: the SHA-256 of the bytes.
        let etag: String
    }

    /// The modules by their path below the version (`lockstep.js`, `sync/socket-session.js`…).
    let files: [String: File]
    /// `<package version>-<12 hex digits>`; empty when no files were found.
    let version: String

    static let shared = SDKFiles.load()

    static var candidates: [URL] {
        let beside = Bundle.main.bundleURL.appendingPathComponent("Lockstep_LockstepServer.resources/JavaScript")
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("JavaScript")
        return [beside, source]
    }

    static func load() -> SDKFiles {
        let manager = FileManager.default
        guard let directory = candidates.first(where: { manager.fileExists(atPath: $0.appendingPathComponent("lockstep.js").path) })
        else { return SDKFiles(files: [:], version: "") }
        return load(from: directory)
    }

    /// The `.js` files under `directory`, at any depth.
    static func load(from directory: URL) -> SDKFiles {
        let manager = FileManager.default
        var files: [String: File] = [:]
        let root = directory.standardizedFileURL.resolvingSymlinksInPath().path
        for case let url as URL in manager.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) ?? FileManager.DirectoryEnumerator() {
            guard url.pathExtension == "js", (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                let data = manager.contents(atPath: url.path)
            else { continue }
            let path = url.standardizedFileURL.resolvingSymlinksInPath().path
            guard path.hasPrefix(root + "/") else { continue }
            let bytes = Array(data)
            files[String(path.dropFirst(root.count + 1))] = File(bytes: bytes, etag: "\"sha256-\(Hex.encode(SHA256.hash(data: bytes)))\"")
        }
        var hasher = SHA256()
        for (path, file) in files.sorted(by: { $0.key < $1.key }) {
            hasher.update(data: Array(path.utf8) + [0])
            hasher.update(data: file.bytes + [0])
        }
        let digest = Hex.encode(hasher.finalize())
        return SDKFiles(files: files, version: "\(packageVersion(files["version.js"]) ?? "0")-\(digest.prefix(12))")
    }

    /// The version `version.js` declares: `export const version = "0.1.0";`.
    private static func packageVersion(_ file: File?) -> String? {
        guard let file else { return nil }
        let text = String(decoding: file.bytes, as: UTF8.self)
        guard let start = text.range(of: "export const version = \"") else { return nil }
        let rest = text[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        let version = String(rest[..<end])
        return version.utf8.allSatisfy({ Self.versionBytes.contains($0) }) ? version : nil
    }

    private static let versionBytes = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-".utf8)

    /// The module that `/sdk/lockstep-<version>.js` answers: it re-exports the versioned entry,
    /// so that its imports resolve below the version, and both URLs share one instance of it.
    var entryModule: [UInt8] {
        Array("// lockstep.js \(version): every module lives below ./\(version)/\nexport * from \"./\(version)/lockstep.js\";\n".utf8)
    }
}
