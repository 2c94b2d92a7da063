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
}
