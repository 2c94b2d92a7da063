import HummingbirdWebSocket
@testable import LockstepServer
import Testing

@Suite("Streaming socket: the inbox between reading and handling")
struct SocketInboxTests {
    private func received(_ text: String) -> SocketInbox.Received {
        SocketInbox.Received(message: .text(text), receivedAt: 0)
    }

    private func text(_ received: SocketInbox.Received?) -> String? {
        guard case .text(let text) = received?.message else { return nil }
        return text
    }

    @Test func messagesComeOutInOrderThenTheEnd() async throws {
        let inbox = SocketInbox(limit: 1024)
        for word in ["a", "b", "c"] { await inbox.put(received(word)) }
        inbox.finish()
        #expect(text(try await inbox.next()) == "a")
        #expect(text(try await inbox.next()) == "b")
        #expect(text(try await inbox.next()) == "c")
        #expect(try await inbox.next() == nil)
    }

    @Test(.timeLimit(.minutes(1))) func theReaderWaitsWhileTheInboxIsFull() async throws {
        let inbox = SocketInbox(limit: 10)
        await inbox.put(received("12345678"))  // fits the empty inbox
        let second = Task { await inbox.put(received("abcdefgh")) }  // 16 bytes > 10: must wait
        try await Task.sleep(for: .milliseconds(100))
        #expect(text(try await inbox.next()) == "12345678")
        await second.value
        #expect(text(try await inbox.next()) == "abcdefgh")
    }

    @Test func oneMessageLargerThanTheLimitStillFitsAnEmptyInbox() async throws {
        let inbox = SocketInbox(limit: 4)
        await inbox.put(received("longer than four"))
        #expect(text(try await inbox.next()) == "longer than four")
    }

    @Test func aFailureComesAfterTheMessagesBeforeIt() async throws {
        struct SocketBroke: Error {}
        let inbox = SocketInbox(limit: 1024)
        await inbox.put(received("last"))
        inbox.finish(throwing: SocketBroke())
        #expect(text(try await inbox.next()) == "last")
        await #expect(throws: SocketBroke.self) { try await inbox.next() }
    }

    @Test(.timeLimit(.minutes(1))) func aWaitingTakerGetsTheNextMessage() async throws {
        let inbox = SocketInbox(limit: 1024)
        let taker = Task { try await inbox.next() }
        try await Task.sleep(for: .milliseconds(50))
        await inbox.put(received("late"))
        #expect(text(try await taker.value) == "late")
    }
}
