import LockstepCore

/// Sync over plain HTTP, for when the socket cannot be opened (a proxy that refuses upgrades,
/// a route that is missing): index pages from `GET /index`, changes sent with
/// `POST /changes`, and the change feed long-polled with `GET /changes?cv=`.
struct PollingSession: Sendable {
    let context: SyncContext
    let buckets: [String]

    /// Syncs every bucket until cancelled, or until one of its loops fails (the server is
    /// gone, refuses the token, or a write fails): that ends the session, and its other loops.
    func run() async throws {
        let bucketsGeneration = context.bucketsChanged.generation
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await context.watchBuckets(after: bucketsGeneration) }
            for bucket in buckets {
                group.addTask { try await receiveLoop(bucket) }
                group.addTask { try await sendLoop(bucket) }
            }
            while try await group.next() != nil {}
        }
    }

    private var replica: Replica { context.replica }
    private var api: ServerAPI { context.api }

    /// Takes the bucket's changes until cancelled; returns when the bucket is forgotten because
    /// this user lost its space (the server answers 404 for it).
    private func receiveLoop(_ bucket: String) async throws {
        do {
            try await receiveChanges(bucket)
        } catch let failure as ServerAPI.HTTPFailure where failure.status == 404 {
            if try await context.forgetIfSpaceLost(bucket) { return }
            throw failure
        }
    }

    private func receiveChanges(_ bucket: String) async throws {
        while !Task.isCancelled {
            switch try replica.position(bucket: bucket) {
            case .index(let mark):
                context.setLive(bucket, false)
                try await walkIndex(bucket, from: mark)
            case .changes(let cursor):
                if !context.isLive(bucket) {
                    // The feed long-polls when there is nothing new; the index's `current`
                    // says at once whether we are caught up.
                    let probe = try await api.indexPage(bucket: bucket, mark: nil, limit: 1, data: false)
                    if probe.current == cursor { context.setLive(bucket, true) }
                }
                guard let changes = try await api.changes(bucket: bucket, after: cursor, limit: context.configuration.indexPageSize)
                else {
                    // The feed's 404: the cursor is unknown, or the bucket's space is gone.
                    if try await context.forgetIfSpaceLost(bucket) { return }
                    try await replica.restartIndex(bucket: bucket)
                    continue
                }
                _ = try await context.take([ChangeBatch(bucket: bucket, changes: changes)])
                context.setLive(bucket, true)
            }
        }
    }

    private func walkIndex(_ bucket: String, from start: String?) async throws {
        var mark = start
        var first = start == nil
        while !Task.isCancelled {
            let page = try await api.indexPage(bucket: bucket, mark: mark, limit: context.configuration.indexPageSize)
            let complete = try await replica.takeIndexPage(bucket: bucket, page, isFirst: first)
            context.progress.signal()
            if complete { return }
            mark = page.mark
            first = false
        }
    }

    /// Sends the bucket's changes until cancelled; returns when the bucket is forgotten because
    /// this user lost its space (the server answers 404 for it).
    private func sendLoop(_ bucket: String) async throws {
        do {
            try await sendChanges(bucket)
        } catch let failure as ServerAPI.HTTPFailure where failure.status == 404 {
            if try await context.forgetIfSpaceLost(bucket) { return }
            throw failure
        }
    }

    private func sendChanges(_ bucket: String) async throws {
        // Diffs are made against ghosts, so send only once the bucket has caught up.
        var progress = context.progress.generation
        while !context.isLive(bucket) {
            progress = await context.progress.wait(after: progress)
            try Task.checkCancellation()
        }
        var seen = replica.outboxChanged.generation
        var resend = true
        while !Task.isCancelled {
            let changes = try await replica.takeOutgoing(bucket: bucket, resend: resend)
            resend = false
            if changes.isEmpty {
                seen = await replica.outboxChanged.wait(after: seen)
                continue
            }
            let results = try await api.post(bucket: bucket, changes: changes)
            try await replica.markAccepted(bucket: bucket, results.filter { $0.error == nil }.map(\.changeIDs))
            let failures = results.filter { $0.error != nil }
            if !failures.isEmpty {
                let outcome = try await context.take([ChangeBatch(bucket: bucket, changes: failures)])[0]
                if outcome.retryLater {
                    try await Task.sleep(for: .seconds(1))
                    resend = true
                }
                if !outcome.resendFull.isEmpty { resend = true }
            }
        }
    }
}
