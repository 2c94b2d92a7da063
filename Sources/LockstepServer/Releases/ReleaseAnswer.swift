import LockstepCore
import NIOCore

/// How a request for a window or a key is answered when it succeeds: the body and the headers
/// that go with it. One place for both ways they are served, Hummingbird's route
/// (``ReleaseRoutes``) and the event loop's own answer (``ReleaseFastPath``).
struct ReleaseAnswer: Sendable {
    let body: ByteBuffer
    /// A window's entity tag; keys have none.
    let etag: String?
    /// `Cache-Control`, the `ETag` and, for a window asked as `latest`, the window's own address
    /// in `Content-Location`.
    let headers: [(name: String, value: String)]

    static let contentType = "application/json"

    /// How long clients and caches may keep a window: it never changes, and is of use for
    /// as long as it covers.
    static let windowCacheControl = "public, max-age=\(ReleaseWindow.lengthMilliseconds / 1000), immutable"

    /// Whether an `If-None-Match` header names this answer's entity tag: then the answer is `304`.
    func isNotModified(ifNoneMatch: String?) -> Bool {
        guard let etag, let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == etag }
    }
}

extension ReleaseService {
    /// The answer to `GET /releases/{store}/windows/{start}`, computing the window if no one has
    /// yet; a ``ReleaseError`` says why there is none (no such store, not a whole minute, not
    /// open yet, over).
    func windowAnswer(store: String, start text: String) async throws(ReleaseError) -> ReleaseAnswer {
        let (schedule, start, now) = try windowRequested(store: store, start: text)
        return windowAnswer(await window(schedule, start: start), schedule: schedule, start: start, latest: text == "latest", now: now)
    }

    /// The same answer when it is at hand: the window computed already and the request valid.
    /// `nil` otherwise, without computing or waiting; ``windowAnswer(store:start:)`` then
    /// answers (and explains a refusal).
    func windowAnswerAtHand(store: String, start text: String) -> ReleaseAnswer? {
        guard let (schedule, start, now) = try? windowRequested(store: store, start: text),
            let file = windows.computed(WindowKey(store: schedule.store.id, start: start))
        else { return nil }
        return windowAnswer(file, schedule: schedule, start: start, latest: text == "latest", now: now)
    }

    /// The answer to `GET /releases/{store}/keys/{time}`, computing the hour's chain if no one
    /// has yet; a ``ReleaseError`` says why there is none (no such store, not released yet, too old).
    func keyAnswer(store: String, time text: String) async throws(ReleaseError) -> ReleaseAnswer {
        let (schedule, position, now) = try keyRequested(store: store, time: text)
        return keyAnswer(await chain(schedule.store.id, epoch: position.epoch), schedule: schedule, position: position, latest: text == "latest", now: now)
    }

    /// The same answer when the hour's chain is computed already and the request valid; `nil`
    /// otherwise, without computing or waiting.
    func keyAnswerAtHand(store: String, time text: String) -> ReleaseAnswer? {
        guard let (schedule, position, now) = try? keyRequested(store: store, time: text),
            let chain = chains.computed(ChainKey(store: schedule.store.id, epoch: position.epoch))
        else { return nil }
        return keyAnswer(chain, schedule: schedule, position: position, latest: text == "latest", now: now)
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

    private func windowAnswer(_ file: WindowFile, schedule: StoreSchedule, start: Int64, latest: Bool, now: Int64) -> ReleaseAnswer {
        guard latest else {
            return ReleaseAnswer(body: file.buffer, etag: file.etag, headers: [("ETag", file.etag), ("Cache-Control", ReleaseAnswer.windowCacheControl)])
        }
        let secondsLeft = (start + ReleaseWindow.stepMilliseconds - now) / 1000
        return ReleaseAnswer(body: file.buffer, etag: file.etag, headers: [
            ("ETag", file.etag), ("Cache-Control", "public, max-age=\(secondsLeft)"),
            ("Content-Location", "/releases/\(schedule.store.id)/windows/\(start)"),
        ])
    }

    private func keyRequested(store: String, time text: String) throws(ReleaseError) -> (StoreSchedule, ChainPosition, now: Int64) {
        let schedule = try schedule(store)
        let now = nowMilliseconds
        let position = ChainPosition(releasedAt: try text == "latest" ? now : Self.milliseconds(text, name: "a key time"))
        let time = position.releaseTime
        guard time <= now else {
            throw ReleaseError(.notReleased, "the key for \(time) is released at \(time) server time, in \(time - now) ms",
                details: ["releasesAt": .integer(time), "now": .integer(now)])
        }
        guard position.epoch > ChainPosition(releasedAt: now).epoch - Self.keyHistoryEpochs else {
            throw ReleaseError(.expired, "keys are kept for \(Self.keyHistoryEpochs) hours; \(time) is older")
        }
        return (schedule, position, now)
    }

    private func keyAnswer(_ chain: ReleaseKeyChain, schedule: StoreSchedule, position: ChainPosition, latest: Bool, now: Int64) -> ReleaseAnswer {
        let key = ReleasedKey(store: schedule.store.id, position: position, key: chain.key(at: position.index))
        let cacheControl = latest ? "public, max-age=1" : "public, max-age=31536000, immutable"
        return ReleaseAnswer(body: ByteBuffer(bytes: key.json.jsonBytes), etag: nil, headers: [("Cache-Control", cacheControl)])
    }
}
