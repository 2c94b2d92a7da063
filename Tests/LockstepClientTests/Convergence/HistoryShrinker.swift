/// Makes a failing history smaller: drops runs of steps, halving their length (half the
/// history, then quarters, … then single steps), and keeps each smaller history that still
/// fails, until no single step can go or the time is up.
///
/// A run is real processes and real timing, so a history may fail one time and pass the next;
/// a smaller history is kept only when it failed, so the result always failed once.
enum HistoryShrinker {
    struct Result: Sendable {
        var history: History
        var problems: [String]
        var runs: Int
        /// Whether every single step was tried (`false`: the time ran out first).
        var complete: Bool
    }

    static func shrink(
        _ history: History, problems: [String], within budget: Duration, fails: (History) async -> [String]?
    ) async -> Result {
        let deadline = ContinuousClock.now + budget
        var result = Result(history: history, problems: problems, runs: 0, complete: false)
        var chunk = max(1, history.steps.count / 2)
        while true {
            var start = 0
            var removedAny = false
            while start < result.history.steps.count {
                guard ContinuousClock.now < deadline else { return result }
                var candidate = result.history
                candidate.steps.removeSubrange(start..<min(start + chunk, candidate.steps.count))
                result.runs += 1
                if let problems = await fails(candidate) {
                    result.history = candidate
                    result.problems = problems
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if chunk == 1 && !removedAny {
                result.complete = true
                return result
            }
            chunk = max(1, chunk / 2)
        }
    }
}
