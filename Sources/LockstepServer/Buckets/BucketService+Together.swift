extension BucketService {
    /// Applies changes to one bucket that commit together: in one transaction, as one group of
    /// their own (however many), announced as any change is once durable. Each is answered as
    /// a group's changes are (committed, or refused alone by the merge rules); when the
    /// transaction fails, nothing of it is stored and this throws. For restores
    /// (``HistoryService``), whose requests name their author and what they restore.
    func applyTogether(_ requests: [ChangeRequest]) async throws -> [ChangeOutcome] {
        for request in requests { try Self.checkNames(of: request.change) }
        let outcomes = try await withCheckedThrowingContinuation { answer in
            writer.enqueueTogether(requests) { answer.resume(with: $0) }
        }
        for outcome in outcomes {
            switch outcome {
            case .committed: LockstepMetrics.changesApplied.increment()
            case .rejected: LockstepMetrics.changesRejected.increment()
            }
        }
        return outcomes
    }
}
