import LockstepCore

/// How a request for a window is answered when it succeeds: the window's bytes and the headers
/// that go with them. One place for both ways a window is served, Hummingbird's route
/// (``ReleaseRoutes``) and the event loop's own answer (``ReleaseWindowFastPath``).
struct WindowAnswer: Sendable {
    let file: WindowFile
    /// `ETag`, `Cache-Control` and, for `latest`, the window's own address in `Content-Location`.
    let headers: [(name: String, value: String)]

    static let contentType = "application/json"

    /// How long clients and caches may keep a window: it never changes, and is of use for
    /// as long as it covers.
    static let cacheControl = "public, max-age=\(ReleaseWindow.lengthMilliseconds / 1000), immutable"

    /// Whether an `If-None-Match` header names this window's entity tag: then the answer is `304`.
    func isNotModified(ifNoneMatch: String?) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == file.etag }
    }
}

extension ReleaseService {
    /// The answer to `GET /releases/{store}/windows/{start}`, computing the window if no one has
    /// yet; a ``ReleaseError`` says why there is none (no such store, not a whole minute, not
    /// open yet, over).
    func windowAnswer(store: String, start text: String) async throws(ReleaseError) -> WindowAnswer {
        let (schedule, start, now) = try windowRequested(store: store, start: text)
        return answer(await window(schedule, start: start), schedule: schedule, start: start, latest: text == "latest", now: now)
    }

    /// The same answer when it is at hand: the window computed already and the request valid.
    /// `nil` otherwise, without computing or waiting; ``windowAnswer(store:start:)`` then
    /// answers (and explains a refusal).
    func windowAnswerAtHand(store: String, start text: String) -> WindowAnswer? {
        guard let (schedule, start, now) = try? windowRequested(store: store, start: text),
            let file = windows.computed(WindowKey(store: schedule.store.id, start: start))
        else { return nil }
        return answer(file, schedule: schedule, start: start, latest: text == "latest", now: now)
    }

    private func windowRequested(store: String, start text: String) throws(ReleaseError) -> (StoreSchedule, start: Int64, now: Int64) {
        let schedule = try schedule(store)
        let now = nowMilliseconds
        let start = try text == "latest" ? ReleaseWindow.start(containing: now) : Self.milliseconds(text, name: "a window start")
        guard start % ReleaseWindow.stepMilliseconds == 0 else {
            throw ReleaseError(.badRequest, "windows start on whole minutes (multiples of \(ReleaseWindow.stepMilliseconds) ms); \(start) is not one")
        }
        guard start <= now else {
            throw ReleaseError(.notYet, "the window \(start) opens in \(start - now) ms", details: ["start": .integer(start), "now": .integer(now)])
        }
        guard now < start + ReleaseWindow.lengthMilliseconds else {
            throw ReleaseError(.expired, "the window \(start) ended \(now - start - ReleaseWindow.lengthMilliseconds) ms ago; ask for \(ReleaseWindow.start(containing: now))",
                details: ["start": .integer(start), "now": .integer(now)])
        }
        return (schedule, start, now)
    }

    private func answer(_ file: WindowFile, schedule: StoreSchedule, start: Int64, latest: Bool, now: Int64) -> WindowAnswer {
        guard latest else {
            return WindowAnswer(file: file, headers: [("ETag", file.etag), ("Cache-Control", WindowAnswer.cacheControl)])
        }
        let secondsLeft = (start + ReleaseWindow.stepMilliseconds - now) / 1000
        return WindowAnswer(file: file, headers: [
            ("ETag", file.etag), ("Cache-Control", "public, max-age=\(secondsLeft)"),
            ("Content-Location", "/releases/\(schedule.store.id)/windows/\(start)"),
        ])
    }
}
