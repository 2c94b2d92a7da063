import Foundation
import LockstepCore

extension ServerKey {
    /// Reads the key kept in `path` (64 hex digits), first creating the file with a fresh key
    /// (mode 0600) when there is none; `created` says which.
    ///
    /// A key file that exists but holds no key is an error, never replaced: replacing it would
    /// leave every secret sealed under the old key unreadable.
    public static func loadOrCreate(path: String) throws -> (key: ServerKey, created: Bool) {
        if !FileManager.default.fileExists(atPath: path) {
            let bytes = ServerKey.randomBytes()
            do {
                try PrivateFiles.writeNewFile(path, contents: Hex.encode(bytes) + "\n")
                return (try ServerKey(bytes: bytes), true)
            } catch where FileManager.default.fileExists(atPath: path) {
                // Another process created it first: read theirs.
            }
        }
        return (try load(path: path), false)
    }

    /// Reads the key kept in `path`.
    public static func load(path: String) throws -> ServerKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServerKeyError("cannot read the server key file \(path)")
        }
        do {
            return try ServerKey(hex: String(decoding: data, as: UTF8.self))
        } catch {
            throw ServerKeyError("\(path) does not hold a server key: \(error)")
        }
    }
}
