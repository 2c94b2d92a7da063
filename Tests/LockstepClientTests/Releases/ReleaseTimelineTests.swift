import LockstepClient
import LockstepCore
import Synchronization
import Testing

@Suite("Release timeline: refreshes, outages, verification")
struct ReleaseTimelineTests {
    /// Runs a timeline's snapshot stream on simulated time, one tick a second, for `seconds`;
    /// the fetches a tick starts finish before time moves on.
    static func run(_ timeline: ReleaseTimeline, time: SimulatedTime, seconds: Int64) async -> [ReleaseSnapshot] {
        let reference = TimelineReference()
        reference.timeline.withLock { $0 = timeline }
        let end = time.current + seconds * 1_000_000_000
        let stream = timeline.snapshots(every: .seconds(1)) { interval in
            await reference.settle()
            guard time.current < end else { throw CancellationError() }
            time.advance(interval)
        }
        var snapshots: [ReleaseSnapshot] = []
        for await snapshot in stream { snapshots.append(snapshot) }
        return snapshots
    }

    @Test func keepsItsGridRunningThroughATwoMinuteOutage() async throws {
        let start = TimelineFixtures.minute + 30_000
        let time = SimulatedTime(milliseconds: start)
        // The first refresh is due 6 minutes into the first window; the network is down from
        // 10 seconds before that for two minutes.
        let outage = (TimelineFixtures.minute + 350_000)..<(TimelineFixtures.minute + 470_000)
        let fetcher = try ScriptedFetcher(configuration: TimelineFixtures.configuration(), seedText: TimelineFixtures.seedText, time: time) {
            outage.contains($0)
        }
        let timeline = ReleaseTimeline(store: "main", time: time, fetcher: fetcher, refreshJitter: { 0 })
        let snapshots = await Self.run(timeline, time: time, seconds: 15 * 60)

        for snapshot in snapshots.dropFirst() {
            #expect(snapshot.slots.count == 12)
            #expect(!snapshot.slots.contains { $0.content == .unknown }, "the grid ran out at \(snapshot.time - start) ms")
            for slot in snapshot.slots {
                #expect((0...1).contains(slot.progress))
                #expect(slot.secondsLeft > 0)
                #expect(slot.start! <= snapshot.time && snapshot.time < slot.end!)
            }
            // Outside the outage every showing is open within a second of its start.
            if !outage.contains(snapshot.time), !outage.contains(snapshot.time - 2_000) {
                let late = snapshot.slots.filter { $0.content == .sealed && snapshot.time - $0.start! > 1_000 }
                #expect(late.isEmpty, "sealed at \(snapshot.time - start) ms: \(late)")
            }
        }
        let attempts = fetcher.windowAttempts
        let failed = attempts.filter { !$0.succeeded }.map(\.time)
        #expect(failed.first == TimelineFixtures.minute + 360_000, "the refresh comes 6 minutes into the window")
        for (earlier, later) in zip(failed, failed.dropFirst()) { #expect(later - earlier == ReleaseTimeline.retryInterval) }
        #expect(failed.count == 22)
        let recovered = try #require(attempts.first { $0.succeeded && $0.time >= outage.upperBound })
        #expect(recovered.time - outage.upperBound < ReleaseTimeline.retryInterval)
        #expect(snapshots.count > 100)
        #expect(snapshots.last!.time == start + 15 * 60_000)
        #expect(snapshots.last!.coveredUntil! > snapshots.last!.time + 60_000)
        #expect(snapshots.last!.slots.allSatisfy { if case .item = $0.content { true } else { false } })
    }

    @Test func runsOutOnlyWhenEverythingHeldHasEnded() async throws {
        let time = SimulatedTime(milliseconds: TimelineFixtures.minute)
        let down = (TimelineFixtures.minute + 60_000)..<(TimelineFixtures.minute + 900_000)
        let fetcher = try ScriptedFetcher(configuration: TimelineFixtures.configuration(slots: 3), seedText: TimelineFixtures.seedText, time: time) {
            down.contains($0)
        }
        let timeline = ReleaseTimeline(store: "main", time: time, fetcher: fetcher, refreshJitter: { 0.5 })
        let snapshots = await Self.run(timeline, time: time, seconds: 17 * 60)
        let coveredUntil = TimelineFixtures.minute + 600_000
        for snapshot in snapshots.dropFirst() {
            let unknown = snapshot.slots.filter { $0.content == .unknown }.count
            if snapshot.time < coveredUntil {
                #expect(unknown == 0)
            } else if (coveredUntil + 240_000..<down.upperBound).contains(snapshot.time) {
                // The last showings of the window end up to a shelf life (4 minutes) after it.
                #expect(unknown == 3, "at \(snapshot.time - TimelineFixtures.minute) ms nothing is known")
            } else if snapshot.time >= down.upperBound + 2_000 {
                #expect(unknown == 0, "back after the outage")
            }
        }
    }

    @Test func refusesWindowsAndKeysThatRewriteWhatItSawBefore() async throws {
        let time = SimulatedTime(milliseconds: TimelineFixtures.minute + 5_000)
        let configuration = TimelineFixtures.configuration()
        let honest = try ScriptedFetcher(configuration: configuration, seedText: TimelineFixtures.seedText, time: time)
        // Another seed: another chain, other boxes, other items, as a server that swapped its
        // schedule after the fact would serve.
        let liar = try ScriptedFetcher(configuration: configuration, seedText: TimelineFixtures.seedText + "!", time: time)
        let timeline = ReleaseTimeline(store: "main", time: time, fetcher: TwoFacedFetcher(first: honest, then: liar), refreshJitter: { 0 })
        let witness = ReleaseTimeline(store: "main", time: time, fetcher: honest, refreshJitter: { 0 })
        for clock in [timeline, witness] {
            for _ in 0..<2 {
                _ = await clock.step()
                await clock.settle()
            }
        }
        time.advance(.seconds(6 * 60))
        for clock in [timeline, witness] {
            for _ in 0..<3 {
                _ = await clock.step()
                await clock.settle()
            }
        }
        let error = try #require(await timeline.lastError as? ReleaseVerificationError)
        #expect(error.message.contains("anchor") || error.message.contains("changed"))
        let shown = try #require(await timeline.step()), witnessed = try #require(await witness.step())
        #expect(shown.slots == witnessed.slots)

        let forged = try #require(try await liar.key(store: "main", time: time.current / 1_000_000))
        #expect(await timeline.receive(forged) == false)
        let genuine = try #require(try await honest.key(store: "main", time: time.current / 1_000_000))
        #expect(await timeline.receive(genuine))
    }

    @Test(.timeLimit(.minutes(1))) func opensItemsFromARealServer() async throws {
        let server = try await StoreServer.start(configuration: TimelineFixtures.configuration(), seedText: TimelineFixtures.seedText)
        defer { Task { await server.stop() } }
        let timeline = ReleaseTimeline(store: "main", time: RealServerTime(), fetcher: HTTPReleaseFetcher(baseURL: server.baseURL))
        var opened: [ReleasedItem] = []
        for await snapshot in timeline.snapshots(every: .milliseconds(50)) {
            opened = snapshot.slots.compactMap { if case .item(let item) = $0.content { item } else { nil } }
            if opened.count == 12 { break }
        }
        #expect(Set(opened.map(\.id)).isSubset(of: ["sword", "shield", "potion"]))
        #expect(opened.contains { $0.id == "sword" && $0.data == ["price": 100] })
        #expect(await timeline.lastError == nil)
    }

    /// On a `ServerClock`, the timeline neither shows nor fetches anything before the clock's
    /// first exchange, then shows the grid at the server's time, not the device's.
    @Test(.timeLimit(.minutes(1))) func waitsForTheServersTimeBeforeShowingOrFetching() async throws {
        let world = SimulatedWorld(seed: 7, delays: .lan)
        let clock = ServerClock(transport: world, timeSource: world)
        let fetcher = RecordingFetcher()
        let timeline = ReleaseTimeline(store: "main", time: clock, fetcher: fetcher)
        #expect(await timeline.step() == nil)
        await timeline.settle()
        #expect(fetcher.windowStarts.withLock { $0 }.isEmpty)

        try await clock.resync()
        let snapshot = try #require(await timeline.step())
        let serverMilliseconds = world.serverTime(at: world.now()) / 1_000_000
        #expect(abs(snapshot.time - serverMilliseconds) <= 1)
        await timeline.settle()
        #expect(fetcher.windowStarts.withLock { $0 } == [ReleaseWindow.start(containing: snapshot.time)])
    }
}

/// Records the windows asked for and serves none.
private final class RecordingFetcher: ReleaseFetching {
    let windowStarts = Mutex<[Int64]>([])

    func window(store: String, start: Int64) async throws -> ReleaseWindow {
        windowStarts.withLock { $0.append(start) }
        throw ReleaseFetchError(status: 503, message: "no windows here")
    }

    func key(store: String, time: Int64) async throws -> ReleasedKey? { nil }
}
