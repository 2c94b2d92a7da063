@testable import LockstepServer
import Testing

@Suite("Streaming socket: the inbox between reading and handling")
struct SocketInboxTests {
    private func received(_ text: String) -> SocketInbox.Received {
        SocketInbox.Received(message: .text(text), receivedAt: 0)
    }

    /// The text of a taken message, or what was taken instead.
    private func take(_ inbox: SocketInbox) -> String {
        switch inbox.take() {
        case .message(let received, _):
            guard case .text(let text) = received.message else { return "binary" }
            return text
        case .idle: return "idle"
        case .finished: return "finished"
        }
    }

    @Test func theFirstPutStartsAServerAndLaterOnesDoNot() {
        let inbox = SocketInbox(limit: 1024)
        #expect(inbox.put(received("a")).startServing)
        #expect(!inbox.put(received("b")).startServing, "a server is on its way")
        #expect(take(inbox) == "a")
        #expect(take(inbox) == "b")
        #expect(take(inbox) == "idle", "the server ends")
        #expect(inbox.put(received("c")).startServing, "the next message needs a new one")
        #expect(take(inbox) == "c")
    }

    @Test func messagesPutWhileServingAreTakenByTheSameServer() {
        let inbox = SocketInbox(limit: 1024)
        #expect(inbox.put(received("a")).startServing)
        #expect(take(inbox) == "a")
        #expect(!inbox.put(received("b")).startServing, "the server has not gone idle yet")
        #expect(take(inbox) == "b")
        #expect(take(inbox) == "idle")
    }

    @Test func theEndComesAfterTheMessagesBeforeIt() {
        let inbox = SocketInbox(limit: 1024)
        #expect(inbox.put(received("last")).startServing)
        #expect(!inbox.finish(), "the server that is on its way ends the connection")
        #expect(take(inbox) == "last")
        #expect(take(inbox) == "finished")
        #expect(!inbox.put(received("late")).startServing, "nothing is taken after the end")
        #expect(take(inbox) == "finished")
    }

    @Test func anEndWithNobodyServingStartsAServerToCloseTheConnection() {
        let inbox = SocketInbox(limit: 1024)
        #expect(inbox.finish())
        #expect(!inbox.finish(), "once")
        #expect(take(inbox) == "finished")
    }

    @Test func aFullInboxStopsTheReaderUntilATakeMakesRoom() {
        let inbox = SocketInbox(limit: 10)
        #expect(!inbox.put(received("12345")).isFull)
        #expect(inbox.put(received("abcde")).isFull, "10 bytes: read no more")
        guard case .message(_, let resumeFirst) = inbox.take() else { Issue.record("no message"); return }
        #expect(resumeFirst, "5 bytes left: the reader may go on")
        guard case .message(_, let resumeSecond) = inbox.take() else { Issue.record("no message"); return }
        #expect(!resumeSecond, "the reader was told once")
    }

    @Test func oneMessageLargerThanTheLimitIsStillTaken() {
        let inbox = SocketInbox(limit: 4)
        #expect(inbox.put(received("longer than four")).isFull)
        #expect(take(inbox) == "longer than four")
    }
}
