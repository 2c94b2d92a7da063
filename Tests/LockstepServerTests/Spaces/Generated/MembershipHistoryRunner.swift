import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Plays a ``MembershipHistory`` against real servers (one, or two nodes sharing PostgreSQL)
/// and checks, after every step, what each person's socket and requests got:
///
/// - a channel on the space opens only for a member, and another person's request is
///   answered as for a bucket that does not exist;
/// - a channel receives no change written after the step that cost its person the space
///   (removal, leaving, a changed role), on whichever node either happened, and nothing at all
///   after the frame that ends it; every such channel does get that frame, and no other
///   channel does;
/// - writes are refused to readers (403) and strangers (404);
/// - at the end, every member's open channel holds every object written.
///
/// Each channel a person opens gets a new number, so what a socket receives is traced to the
/// membership it was opened under, however late a node enforces a removal.
final class MembershipHistoryRunner {
    typealias Person = MembershipHistory.Person
    typealias Role = MembershipHistory.Role

    private struct Session {
        let openedAt: Int
        /// The step whose change of membership ends the channel.
        var endedBy: Int?
        var endFrameSeen = false
        var objects: Set<String> = []
    }

    private final class Device {
        var socket: SocketTestClient
        var node: Int
        var sessions: [Int: Session] = [:]
        var nextChannel = 0
        init(socket: SocketTestClient, node: Int) {
            self.socket = socket
            self.node = node
        }
    }

    private let history: MembershipHistory
    private let nodes: [TestServer]
    private let appID: String
    private var users: [Person: UserSession] = [:]
    private var devices: [Person: Device] = [:]
    private var roles: [Person: Role] = [.ann: .owner]
    /// Objects acknowledged, by the step that wrote them.
    private var written: [String: Int] = [:]
    private var step = -1
    private(set) var problems: [String] = []
    /// What the history exercised, for the test's log.
    private(set) var tally = Tally()

    struct Tally: CustomStringConvertible {
        var writesAcknowledged = 0, writesRefused = 0, readsRefused = 0
        var channelsOpened = 0, channelsRefused = 0, channelsEnded = 0, changesReceived = 0

        var description: String {
            "\(writesAcknowledged) writes acknowledged, \(writesRefused) refused, \(readsRefused) reads refused; "
                + "\(channelsOpened) channels opened, \(channelsRefused) refused, \(channelsEnded) ended by a frame; "
                + "\(changesReceived) changes received"
        }
    }

    init(_ history: MembershipHistory, nodes: [TestServer]) {
        self.history = history
        self.nodes = nodes
        self.appID = nodes[0].appID
    }

    func run() async throws {
        for person in Person.allCases { users[person] = try await nodes[0].createUser(person.email) }
        try await users[.ann]!.createSpace("job-1")
        for person in Person.allCases { devices[person] = Device(socket: try await connect(to: 0), node: 0) }
        do {
            try await play()
        } catch {
            await closeSockets()
            throw error
        }
        await closeSockets()
    }

    private func play() async throws {
        try await openChannel(of: .ann)
        for (index, next) in history.steps.enumerated() {
            step = index
            try await perform(next)
            for person in Person.allCases { absorb(person) }
            guard problems.isEmpty else { return }
        }
        await settle()
    }

    private func closeSockets() async {
        for device in devices.values { await device.socket.close() }
    }

    private func perform(_ next: MembershipHistory.Step) async throws {
        let node = step % nodes.count
        switch next {
        case .invite(let person, let role):
            let answer = try await request(.ann, node, "POST", "__spaces__/job-1/members", ["email": .string(person.email), "role": .string(role.rawValue)])
            expect(answer.status == 200, "inviting \(person) as \(role): \(answer)")
            let before = roles[person]
            roles[person] = role
            guard before != role else { return }
            if before != nil { lose(person) }
            try await openChannel(of: person)
        case .remove(let person):
            let answer = try await request(.ann, node, "DELETE", "__spaces__/job-1/members/\(person.email)")
            expect(answer.status == 200, "removing \(person): \(answer)")
            roles[person] = nil
            lose(person)
        case .leave(let person):
            let answer = try await request(person, node, "POST", "__spaces__/job-1/leave")
            expect(answer.status == 200, "\(person) leaving: \(answer)")
            roles[person] = nil
            lose(person)
        case .write(let person, let node):
            let id = "w\(step)"
            let answer = try await request(person, node, "POST", "__job-1.items/i/\(id)", ["step": .integer(Int64(step))])
            switch roles[person] {
            case nil:
                expect(answer.status == 404 && answer.text.contains("there is no bucket"), "a stranger's write: \(answer)")
                tally.writesRefused += 1
            case .reader?:
                expect(answer.status == 403, "a reader's write: \(answer)")
                tally.writesRefused += 1
            case .writer?, .owner?:
                expect(answer.status == 200, "a \(roles[person]!)'s write: \(answer)")
                if answer.status == 200 { written[id] = step }
                tally.writesAcknowledged += 1
            }
        case .read(let person, let node, let writtenAt):
            let answer = try await request(person, node, "GET", "__job-1.items/i/w\(writtenAt)")
            if roles[person] == nil {
                expect(answer.status == 404 && !answer.text.contains("step"), "a stranger read an object: \(answer)")
                tally.readsRefused += 1
            } else if written["w\(writtenAt)"] != nil {
                expect(answer.status == 200 && answer.json?["step"] == .integer(Int64(writtenAt)), "a member's read: \(answer)")
            } else {
                expect(answer.status == 404, "an object never written was found: \(answer)")
            }
        case .reconnect(let person, let node):
            let device = devices[person]!
            absorb(person)
            await device.socket.close()
            device.socket = try await connect(to: node)
            device.node = node
            device.sessions = [:]
            try await openChannel(of: person)
        }
    }

    /// `person` lost the space (or the role) at this step: the channels they hold must end.
    private func lose(_ person: Person) {
        let device = devices[person]!
        for (channel, session) in device.sessions where session.endedBy == nil {
            device.sessions[channel]?.endedBy = step
        }
    }

    /// Opens a new channel on the space: a member's must open and list the bucket; anyone
    /// else's must be refused as a bucket that does not exist.
    private func openChannel(of person: Person) async throws {
        let device = devices[person]!
        let channel = device.nextChannel
        device.nextChannel += 1
        let fields: JSONObject = [
            "name": "__job-1.items", "token": .string(users[person]!.token), "clientid": .string("\(person)-\(channel)"), "api": "1.1",
        ]
        try await device.socket.send("\(channel):init:\(JSONValue.object(fields))")
        let auth = try #require(await device.socket.next(startingWith: "\(channel):auth:", timeout: .seconds(30)))
        let answer = auth.dropFirst("\(channel):auth:".count)
        guard roles[person] != nil else {
            tally.channelsRefused += 1
            expect(answer.contains("\"code\":404") && answer.contains("there is no bucket __job-1.items"), "a stranger's channel: \(auth)")
            return
        }
        guard answer == users[person]!.username else {
            expect(false, "a member's channel was refused: \(auth)")
            return
        }
        tally.channelsOpened += 1
        var session = Session(openedAt: step)
        var mark = ""
        repeat {
            try await device.socket.send("\(channel):i:1:\(mark)::1000")
            let page = try await device.socket.json(after: "\(channel):i:", timeout: .seconds(30))
            for entry in page["index"]?.arrayValue ?? [] {
                guard let id = entry["id"]?.stringValue else { continue }
                expect(written[id] != nil, "\(person)'s channel \(channel) listed \(id), never acknowledged")
                session.objects.insert(id)
            }
            mark = page["mark"]?.stringValue ?? ""
        } while !mark.isEmpty
        device.sessions[channel] = session
    }

    /// Takes what `person`'s socket received and checks it against the membership of its channels.
    private func absorb(_ person: Person) {
        let device = devices[person]!
        for message in device.socket.mailbox.drain() {
            let parts = message.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, let channel = Int(parts[0]) else { continue }
            guard var session = device.sessions[channel] else {
                expect(!(parts[1] == "c" || parts[1] == "i"), "\(person) got data on channel \(channel), which is not open: \(message.prefix(200))")
                continue
            }
            defer { device.sessions[channel] = session }
            switch parts[1] {
            case "c":
                expect(!session.endFrameSeen, "\(person)'s channel \(channel) sent a change after its end frame: \(message.prefix(200))")
                let changes = (try? JSONValue(parsing: String(parts[2])))?.arrayValue ?? []
                for change in changes {
                    guard let id = change["id"]?.stringValue else { continue }
                    guard let writtenAt = written[id] else {
                        expect(false, "\(person)'s channel \(channel) received \(id), never acknowledged")
                        continue
                    }
                    if let lost = session.endedBy {
                        expect(writtenAt < lost, "\(person) received \(id), written at step \(writtenAt), after losing the space at step \(lost)")
                    }
                    session.objects.insert(id)
                    tally.changesReceived += 1
                }
            case "?":
                expect(session.endedBy != nil, "\(person)'s channel \(channel) ended with no change of membership: \(message)")
                expect(message.contains("\"code\":403"), "\(person)'s end frame: \(message)")
                session.endFrameSeen = true
                tally.channelsEnded += 1
            default:
                break
            }
        }
    }

    /// Waits until every ended channel got its frame and every member's open channel holds
    /// every object written; then records what is still missing.
    private func settle() async {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            for person in Person.allCases { absorb(person) }
            if unsettled().isEmpty { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
        problems += unsettled()
    }

    private func unsettled() -> [String] {
        var missing: [String] = []
        let all = Set(written.keys)
        for person in Person.allCases {
            for (channel, session) in devices[person]!.sessions.sorted(by: { $0.key < $1.key }) {
                if let lost = session.endedBy {
                    if !session.endFrameSeen { missing.append("\(person)'s channel \(channel), ended by step \(lost), got no end frame") }
                } else if session.objects != all {
                    missing.append("\(person)'s channel \(channel) lacks \(all.subtracting(session.objects).sorted())")
                }
            }
        }
        return missing
    }

    private func expect(_ condition: Bool, _ problem: @autoclosure () -> String) {
        if !condition { problems.append("step \(step): \(problem())") }
    }

    private func connect(to node: Int) async throws -> SocketTestClient {
        try await SocketTestClient.connect(to: nodes[node], app: appID)
    }

    private func request(_ person: Person, _ node: Int, _ method: String, _ path: String, _ body: JSONObject? = nil) async throws -> TestResponse {
        try await nodes[node].request(
            method, "/1/\(appID)/\(path)", headers: ["X-Simperium-Token": users[person]!.token], body: body.map(JSONValue.object),
            timeout: .seconds(60))
    }
}
