@testable import LockstepServer
import NIOCore
import Testing

/// The heartbeat's verdicts over a quiet spell: a ping once the peer has been quiet for a
/// quarter of the timeout, one ping only, and the end once it has been silent for all of it.
@Suite("Streaming socket: heartbeat")
struct SocketHeartbeatTests {
    @Test func aQuietPeerIsPingedOnceThenGivenUpAfterTheTimeout() {
        let start = NIODeadline.now()
        let heartbeat = SocketHeartbeat(timeout: .seconds(8))
        #expect(heartbeat.check(now: start + .seconds(1)) == .alive)
        #expect(heartbeat.check(now: start + .seconds(2) + .milliseconds(10)) == .ping)
        #expect(heartbeat.check(now: start + .seconds(4)) == .alive)
        #expect(heartbeat.check(now: start + .seconds(7)) == .alive)
        guard case .silent(let silence) = heartbeat.check(now: start + .seconds(9)) else {
            Issue.record("a peer silent past the timeout is still taken for alive")
            return
        }
        #expect(silence > .seconds(8))
    }

    @Test func timeTheServerCouldNotRunIsForgivenButNotMore() {
        let start = NIODeadline.now()
        let heartbeat = SocketHeartbeat(timeout: .seconds(8), heardAt: start)
        heartbeat.forgive(.seconds(3), now: start + .seconds(6))
        #expect(heartbeat.check(now: start + .seconds(10)) == .ping, "7 s of silence, not 10")
        guard case .silent = heartbeat.check(now: start + .seconds(11) + .milliseconds(500)) else {
            Issue.record("only the stall is forgiven, not the silence after it")
            return
        }
        let stalled = SocketHeartbeat(timeout: .seconds(8), heardAt: start)
        stalled.forgive(.seconds(60), now: start + .seconds(6))
        guard case .silent = stalled.check(now: start + .seconds(14) + .milliseconds(500)) else {
            Issue.record("a stall longer than the silence forgave time to come")
            return
        }
    }
}
