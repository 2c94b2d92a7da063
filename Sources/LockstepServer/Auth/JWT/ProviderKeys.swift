import Foundation
import Synchronization

/// The keys of one app's JWKS, fetched and kept in memory.
///
/// - The first token fetches the JWKS; later ones use what was fetched.
/// - After ``Limits/jwksRefreshSeconds`` the next token starts a fetch in the background and is
///   checked with the keys already held, so no request waits for a fetch that is not needed.
/// - A token naming a `kid` the set does not hold fetches it again and waits for it, at most
///   once per ``Limits/jwksUnknownKeyRefreshSeconds``: a rotation is heard of at once, a
///   stream of made-up `kid`s costs the provider one fetch a minute.
/// - A failed fetch keeps the keys held: an unreachable provider signs nobody out. Failed
///   fetches are retried no more often than unknown `kid`s are.
///
/// Concurrent tokens that need a fetch share one.
final class ProviderKeys: Sendable {
    let url: URL
    private let fetcher: JWKSFetcher
    private let refreshAfter: Duration
    private let unknownKeyInterval: Duration
    private let state = Mutex(State())

    private struct State {
        var keySet: JWTKeySet?
        var fetchedAt: ContinuousClock.Instant?
        var lastAttempt: ContinuousClock.Instant?
        var lastUnknownKeyFetch: ContinuousClock.Instant?
        var lastError: String?
        var fetches = 0
        var fetching: Task<Void, Never>?
    }

    /// What the admin API shows of the cache.
    struct Status: Sendable {
        var keys: [JWTPublicKey]
        var unusable: [String: String]
        var secondsSinceFetch: Double?
        var lastError: String?
        var fetches: Int
    }

    init(url: URL, fetcher: JWKSFetcher, limits: Limits, seeded keySet: JWTKeySet? = nil) {
        self.url = url
        self.fetcher = fetcher
        refreshAfter = .nanoseconds(Int64(limits.jwksRefreshSeconds * 1e9))
        unknownKeyInterval = .nanoseconds(Int64(limits.jwksUnknownKeyRefreshSeconds * 1e9))
        if let keySet {
            state.withLock { state in
                state.keySet = keySet
                state.fetchedAt = .now
                state.lastAttempt = .now
            }
        }
    }

    /// The key that verifies a token with this `kid` and algorithm.
    func key(kid: String?, algorithm: JWTAlgorithm) async throws(JWTRefusal) -> JWTPublicKey {
        guard let keySet = await current() else {
            let why = state.withLock { $0.lastError } ?? "it has not answered yet"
            throw JWTRefusal(.providerUnreachable, "the keys of the app's identity provider could not be fetched: \(why)")
        }
        do {
            return try keySet.key(kid: kid, algorithm: algorithm)
        } catch where error.reason == .unknownKey {
            guard let kid, !keySet.knows(kid: kid), let fresh = await refetchForUnknownKey() else { throw error }
            return try fresh.key(kid: kid, algorithm: algorithm)
        }
    }

    var status: Status {
        state.withLock { state in
            Status(
                keys: state.keySet?.keys ?? [], unusable: state.keySet?.unusable ?? [:],
                secondsSinceFetch: state.fetchedAt.map { Self.seconds(ContinuousClock.now - $0) },
                lastError: state.lastError, fetches: state.fetches)
        }
    }

    /// The keys held, fetched first when there are none (and the last failure is not too
    /// recent); a background fetch starts when they are old.
    private func current() async -> JWTKeySet? {
        enum Next { case use(JWTKeySet), wait, none }
        let now = ContinuousClock.now
        let next = state.withLock { state -> Next in
            if let keySet = state.keySet, let fetchedAt = state.fetchedAt {
                if now - fetchedAt >= refreshAfter, mayRetry(state, now) { startFetch(&state, now) }
                return .use(keySet)
            }
            return mayRetry(state, now) || state.fetching != nil ? .wait : .none
        }
        switch next {
        case .use(let keySet): return keySet
        case .none: return nil
        case .wait:
            await fetch()
            return state.withLock { $0.keySet }
        }
    }

    /// Fetches the set again for a `kid` it lacks, unless that was done less than the interval
    /// ago; the new set, or `nil` when there was no fetch or it failed.
    private func refetchForUnknownKey() async -> JWTKeySet? {
        let now = ContinuousClock.now
        let allowed = state.withLock { state in
            if let last = state.lastUnknownKeyFetch, now - last < unknownKeyInterval { return false }
            state.lastUnknownKeyFetch = now
            return true
        }
        guard allowed else { return nil }
        let before = state.withLock { $0.fetches }
        await fetch()
        return state.withLock { state in state.fetches > before && state.lastError == nil ? state.keySet : nil }
    }

    private func mayRetry(_ state: State, _ now: ContinuousClock.Instant) -> Bool {
        guard state.lastError != nil, let last = state.lastAttempt else { return true }
        return now - last >= unknownKeyInterval
    }

    /// Waits for a fetch: the one under way, or a new one.
    private func fetch() async {
        let task = state.withLock { state in
            if state.fetching == nil { startFetch(&state, .now) }
            return state.fetching
        }
        await task?.value
    }

    private func startFetch(_ state: inout State, _ now: ContinuousClock.Instant) {
        guard state.fetching == nil else { return }
        state.lastAttempt = now
        state.fetching = Task { [fetcher, url] in
            let result: Result<JWTKeySet, JWTKeyError>
            do throws(JWTKeyError) {
                result = .success(try await fetcher.fetch(url))
            } catch {
                result = .failure(error)
            }
            self.finish(result)
        }
    }

    private func finish(_ result: Result<JWTKeySet, JWTKeyError>) {
        state.withLock { state in
            state.fetching = nil
            state.fetches += 1
            switch result {
            case .success(let keySet):
                state.keySet = keySet
                state.fetchedAt = .now
                state.lastError = nil
            case .failure(let error):
                state.lastError = error.description
            }
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
