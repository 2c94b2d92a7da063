import LockstepCore

extension ServerClock {
    /// Keeps taking exchanges in the background while the transport's connection is open, within
    /// the budget of ``Configuration/continuous``, until cancelled.
    ///
    /// Where ``run()`` makes a burst every five minutes and keeps only what that burst can tell,
    /// this adds a few exchanges at a time to the estimate, which combines them over minutes
    /// with the measured drift: on a link with 10 ms of jitter each way the error falls from
    /// p99 4.6 ms after the first burst to under 2 ms after a minute, and the uncertainty with
    /// it. Every minute of exchanges closes a round, a point of the drift's history, saved to
    /// the calibration store.
    ///
    /// ```swift
    /// let continuous = Task { try await clock.calibrateContinuously() }
    /// // … while the socket is open …
    /// continuous.cancel()
    /// ```
    ///
    /// It exchanges only while the transport keeps its connection open
    /// (``ClockExchangeTransport/mayOpenConnection`` is `false`, as for a
    /// ``SocketClockExchangeTransport`` with its socket attached), and only while the app is in
    /// the foreground (``applicationState``); otherwise it waits, checking the connection again
    /// at the settled pace. A ``LockstepClient`` runs it for its ``LockstepClient/clock`` while
    /// its streaming socket is open. A round under way (``resync()``) is joined, not doubled.
    /// Failed exchanges are logged and the pace kept.
    ///
    /// - Throws: `CancellationError` when cancelled, and nothing else.
    public func calibrateContinuously() async throws {
        let budget = configuration.continuous
        guard let full = budget.interval(perMinute: budget.exchangesPerMinute) else {
            // Turned off: nothing to do until cancelled.
            while !Task.isCancelled { await applicationStateChanged.wait(after: applicationStateChanged.generation) }
            throw CancellationError()
        }
        let settled = budget.interval(perMinute: budget.settledExchangesPerMinute)
        while true {
            try Task.checkCancellation()
            if let round = state.withLock({ $0.round }) {
                _ = try? await round.value
                continue
            }
            let seen = applicationStateChanged.generation
            if applicationState == .background {
                completeRound()
                await applicationStateChanged.wait(after: seen)
                continue
            }
            let started = timeSource.now()
            if transport.mayOpenConnection {
                completeRound()
                try await timeSource.sleep(until: started + (settled ?? full))
                continue
            }
            let converged = estimate.map { $0.uncertainty(at: started) <= budget.targetUncertainty.nanoseconds } ?? false
            // Settled at no exchanges a minute: look again at the full pace, for the uncertainty
            // grows with the time since the last exchange.
            if !converged || settled != nil { await exchangeContinuously() }
            try await timeSource.sleep(until: started + ((converged ? settled : full) ?? full))
        }
    }

    /// One continuous exchange, recorded into the open round; the round closes once it has
    /// gathered for ``ContinuousCalibration/roundDuration``.
    private func exchangeContinuously() async {
        let sample: ClockSample
        do {
            var taken = try await transport.sample(stampingWith: timeSource)
            // The connection went while the exchange was under way: it may have opened another.
            taken.opensConnection = transport.mayOpenConnection
            sample = taken
        } catch {
            logger.debug("continuous clock exchange failed", metadata: ["error": "\(error)"])
            return
        }
        let now = timeSource.now()
        let roundDuration = configuration.continuous.roundDuration.nanoseconds
        let (accepted, roundIsOver) = state.withLock { state in
            let accepted = state.estimator.record(sample)
            state.lastContinuousExchange = now
            let start = state.continuousRoundStart ?? now
            state.continuousRoundStart = start
            return (accepted, now - start >= roundDuration)
        }
        if !accepted { logger.warning("implausible clock sample ignored", metadata: ["sample": "\(sample)"]) }
        if roundIsOver { completeRound() }
    }
}
