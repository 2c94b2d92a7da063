import Crypto
import CryptoExtras
import Foundation

/// Hashes passwords with scrypt, which is memory-hard (a GPU farm gains less against it than
/// against bcrypt), and checks them in constant time.
///
/// A hash is stored as `scrypt$<N>$<r>$<p>$<salt base64>$<key base64>`, so the cost can be
/// raised later and old hashes still verify.
public struct PasswordHasher: Sendable {
    /// scrypt's CPU/memory cost N, a power of two; memory used is 128 × N × r bytes.
    public var cost: Int
    public var blockSize = 8
    public var parallelism = 1

    public init(cost: Int) {
        precondition(cost > 1 && cost & (cost - 1) == 0, "scrypt's cost must be a power of two")
        self.cost = cost
    }

    public func hash(_ password: String) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        for index in salt.indices { salt[index] = UInt8.random(in: .min ... .max) }
        let key = try derive(password, salt: salt, cost: cost, blockSize: blockSize, parallelism: parallelism)
        return ["scrypt", String(cost), String(blockSize), String(parallelism), Data(salt).base64EncodedString(), key.base64EncodedString()]
            .joined(separator: "$")
    }

    /// Whether `password` matches `stored`; `false` for anything malformed.
    public func verify(_ password: String, against stored: String) -> Bool {
        let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0] == "scrypt",
            let cost = Int(fields[1]), let blockSize = Int(fields[2]), let parallelism = Int(fields[3]),
            cost > 1, cost & (cost - 1) == 0, cost <= 1 << 20, (1...32).contains(blockSize), (1...16).contains(parallelism),
            let salt = Data(base64Encoded: String(fields[4])), let expected = Data(base64Encoded: String(fields[5])),
            let actual = try? derive(password, salt: Array(salt), cost: cost, blockSize: blockSize, parallelism: parallelism)
        else { return false }
        return Self.constantTimeEqual(actual, expected)
    }

    private func derive(_ password: String, salt: [UInt8], cost: Int, blockSize: Int, parallelism: Int) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: cost, blockSize: blockSize,
            parallelism: parallelism)
        return key.withUnsafeBytes { Data($0) }
    }

    private static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
