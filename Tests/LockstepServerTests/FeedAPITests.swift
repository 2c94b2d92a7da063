import LockstepCore
import LockstepServer
import Testing

@Suite("HTTP data API: index, changes, bulk, all, operations")
struct FeedAPITests {
    @Test func indexPagesNewestFirstAsOfOneCurrentPerWalk() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        for index in 0..<7 { _ = try await user.request("POST", "note/i/k\(index)", body: ["i": .integer(Int64(index))]) }
        _ = try await user.request("DELETE", "note/i/k3")
        var seen: [String] = []
        var mark: String?
        var current: String?
        repeat {
            let page = try await user.request("GET", "note/index?limit=2&data=1" + (mark.map { "&mark=\($0)" } ?? ""))
            let json = try #require(page.json)
            if let current { #expect(json["current"]?.stringValue == current) } else { current = json["current"]?.stringValue }
            for entry in json["index"]?.arrayValue ?? [] {
                seen.append(entry["id"]!.stringValue!)
                #expect(entry["d"]?["i"] != nil)
                #expect(entry["v"] == 1, "as of the walk's current, before k6 changed")
            }
            mark = json["mark"]?.stringValue
            _ = try await user.request("POST", "note/i/k6", body: ["i": .integer(Int64(100 + seen.count))])
        } while mark != nil
        #expect(seen == ["k6", "k5", "k4", "k2", "k1", "k0"])
        let since = try await user.request("GET", "note/index?since=\(current!)")
        #expect(since.json?["index"]?.arrayValue?.map { $0["id"]!.stringValue! } == ["k6"])
    }

    /// The poll waits far longer than the write takes on any machine, so an answer well
    /// before its end is the write waking it (a loaded run took 1.7 s to commit the write,
    /// past a 2 s wait, and the poll gave up empty).
    @Test func changesLongPollWakesOnAWrite() async throws {
        var limits = TestServer.testLimits
        limits.changesLongPollSeconds = 60
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/a", body: ["n": 1])
        let first = try #require(try await user.request("GET", "note/changes").json?.arrayValue)
        let cv = try #require(first.last?["cv"]?.stringValue)
        let started = ContinuousClock.now
        let waiting = Task { try await user.request("GET", "note/changes?cv=\(cv)") }
        try await Task.sleep(for: .milliseconds(300))
        _ = try await user.request("POST", "note/i/a", body: ["n": 2])
        let woken = try await waiting.value
        #expect(ContinuousClock.now - started < .seconds(30), "answered by the wait's end, not by the write")
        let changes = try #require(woken.json?.arrayValue)
        #expect(changes.count == 1)
        #expect(changes.first?["ev"] == 2)
        #expect(changes.first?["sv"] == 1)
        #expect(changes.first?["v"] == ["n": ["o": "r", "v": 2]])
    }

    @Test func changesLongPollGivesUpEmptyAfterItsWait() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/a", body: ["n": 1])
        let first = try #require(try await user.request("GET", "note/changes").json?.arrayValue)
        let started = ContinuousClock.now
        let idle = try await user.request("GET", "note/changes?cv=\(first.last!["cv"]!.stringValue!)")
        #expect(idle.json == [])
        #expect(ContinuousClock.now - started >= .seconds(TestServer.testLimits.changesLongPollSeconds))
    }

    @Test func bulkChangesReportEachResult() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let body: JSONValue = [
            ["id": "a", "o": "M", "ccid": "c1", "v": ["x": ["o": "+", "v": 1]]],
            ["id": "a", "o": "M", "ccid": "c1", "v": ["x": ["o": "+", "v": 1]]],
            ["id": "b", "o": "M", "ccid": "c2", "v": ["x": ["o": "d", "v": "=3"]]],
            ["id": "c", "o": "-", "ccid": "c3"],
            ["id": "bad id", "o": "M", "ccid": "c4", "v": [:]],
            ["id": "a", "o": "M", "ccid": "c5", "sv": "1", "d": ["x": 2]],
        ]
        let response = try await user.request("POST", "note/changes?clientid=bulk", body: body)
        let results = try #require(response.json?.arrayValue)
        #expect(results.map { $0["error"]?.integerValue } == [nil, 409, 440, 404, 400, nil])
        #expect(results[0]["ev"] == 1)
        #expect(results[5]["v"] == ["x": ["o": "r", "v": 2]])
        #expect(results.allSatisfy { $0["ccids"]?.arrayValue?.count == 1 && $0["clientid"] == "bulk" })
        #expect(try await user.request("GET", "note/i/a").json == ["x": 2])
    }

    @Test func healthAndMetrics() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/a", body: ["n": 1])
        #expect(try await server.request("GET", "/health").json == ["status": "ok"])
        let metrics = try await server.request("GET", "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.text.contains("lockstep_changes_applied_total"))
        #expect(metrics.text.contains("http_server_request_duration"))
    }

    @Test func clockExchangeEchoesAndStampsNanoseconds() async throws {
        let offset: Int64 = 3_600_000_000_000
        let server = try await TestServer.start(clockOffsetNanoseconds: offset)
        defer { Task { await server.stop() } }
        let before = ServerClockSource().now()
        let json = try #require(try await server.request("GET", "/time?t1=42").json)
        let after = ServerClockSource().now()
        #expect(json["t1"] == 42)
        let received = try #require(json["t2"]?.integerValue)
        let sent = try #require(json["t3"]?.integerValue)
        #expect(received <= sent)
        #expect(received - offset >= before && sent - offset <= after)
        #expect(try await server.request("GET", "/time?t1=x").status == 400)
    }
}
