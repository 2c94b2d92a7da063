import Synchronization

/// Hashes of tokens that authenticated lately: the HTTP rate limiter charges a request to
/// its token only if the token is here, and to the caller's address otherwise. A made-up
/// token would else buy a fresh allowance with every request.
///
/// Bounded: past ``capacity`` hashes it starts over, which costs a real token no more than
/// one request charged to its address.
public final class VerifiedTokens: Sendable {
    public let capacity: Int
    private let hashes = Mutex<Set<String>>([])

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    public func contains(_ hash: String) -> Bool {
        hashes.withLock { $0.contains(hash) }
    }

    func insert(_ hash: String) {
        hashes.withLock { hashes in
            if hashes.count >= capacity && !hashes.contains(hash) { hashes.removeAll(keepingCapacity: true) }
            hashes.insert(hash)
        }
    }
}
