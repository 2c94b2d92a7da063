import Testing

/// Waits until `condition` holds, checking every few milliseconds, for at most `limit`.
func waitUntil(within limit: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("the condition did not hold within \(limit)")
            throw WaitError.timedOut
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

enum WaitError: Error {
    case timedOut
}
