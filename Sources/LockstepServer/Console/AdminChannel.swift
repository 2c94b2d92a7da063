import LockstepCore
import NIOCore
import Synchronization

/// The console's channel on the streaming socket, so that its overview and presence views are
/// live instead of asking each second. An extension of the protocol that ordinary clients never
/// meet: no bucket is named `__admin__` (a name beginning `__` is a space's, with a dot).
///
/// ```
/// → 0:init:{"name":"__admin__","token":"<the app's admin token>","clientid":…,"api":"1.1"}
/// ← 0:auth:admin                        (a user's token: 0:auth:{"code":403,…})
/// → 0:stats
/// ← 0:stats:{…GET __admin__/stats…}     now, then whenever the app takes a change on any
///                                       node or a connection opens or closes
/// → 0:presence
/// ← 0:presence:{…GET __admin__/presence…}  now, then at each claim or release on this node,
///                                       connection, and a second after a change to a presence
///                                       bucket (another node's claims)
/// → 0:webhooks
/// ← 0:webhooks:{"endpoints":[…]}        now, then when an endpoint changes, this node finishes
///                                       an attempt, or the app takes a change (its backlog grows)
/// ```
///
/// A feed reads its report again when a ``ConsoleSignal`` says it may have moved, at most once
/// per ``pace``: a burst of changes costs one read per pace, and the last state always goes out.
final class AdminChannel: Sendable {
    static let name = "__admin__"
    /// The shortest time between two reports of a feed, and so the longest a change waits to
    /// be reported after the report before it: a busy app costs a console ten small reads a
    /// second at most.
    static let pace: Duration = .milliseconds(100)
    /// How long after a change to a presence bucket the presence report is read: the node that
    /// took the change records its claim just after it (``PresenceService``). This node's claims
    /// raise a signal of their own at once; another node's raise none here, and show then.
    static let claimSettling: Duration = .seconds(1)

    enum Topic: String, Sendable {
        case stats, presence, webhooks
    }

    let number: Int
    let appID: String
    private let reports: AdminReports
    private let signals: ConsoleSignals
    /// Sends a whole message on the connection.
    private let send: @Sendable (ByteBuffer) -> Void
    private let feeds = Mutex<(tasks: [Topic: Task<Void, Never>], closed: Bool)>(([:], false))

    init(number: Int, appID: String, reports: AdminReports, signals: ConsoleSignals, send: @escaping @Sendable (ByteBuffer) -> Void) {
        self.number = number
        self.appID = appID
        self.reports = reports
        self.signals = signals
        self.send = send
    }

    /// Starts the feed of `topic` (asking again changes nothing).
    func follow(_ topic: Topic) {
        feeds.withLock { feeds in
            guard !feeds.closed, feeds.tasks[topic] == nil else { return }
            feeds.tasks[topic] = Task { [self] in await run(topic) }
        }
    }

    /// Ends every feed: the channel was opened again or the connection ended.
    func close() {
        let tasks = feeds.withLock { feeds in
            feeds.closed = true
            defer { feeds.tasks = [:] }
            return Array(feeds.tasks.values)
        }
        for task in tasks { task.cancel() }
    }

    private func run(_ topic: Topic) async {
        // One pending read at most: signals during a read or a pace make one more read, not many.
        let (moves, mover) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let seen = PresenceSeen()
        let watch = signals.watch(appID: appID) { signal in
            switch (topic, signal) {
            case (.stats, .change), (.stats, .connection), (.presence, .connection), (.presence, .claims), (.webhooks, .webhooks),
                (.webhooks, .change):
                mover.yield()
            case (.presence, .change(let bucket)):
                // Not read at once: a claim follows its change, and this node's raise `.claims`.
                guard let bucket, seen.buckets.withLock({ $0.contains(bucket) }) else { return }
                guard seen.settling.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
                Task {
                    try? await Task.sleep(for: Self.claimSettling)
                    seen.settling.store(false, ordering: .releasing)
                    mover.yield()
                }
            case (.stats, .claims), (.stats, .webhooks), (.presence, .webhooks), (.webhooks, .connection), (.webhooks, .claims):
                break
            }
        }
        defer { signals.unwatch(watch) }
        mover.yield()
        for await _ in moves {
            do {
                let report =
                    switch topic {
                    case .stats: try await reports.stats(appID: appID)
                    case .presence: try await reports.presence(appID: appID)
                    case .webhooks: try await reports.webhooks(appID: appID)
                    }
                if topic == .presence {
                    let names = report["buckets"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
                    seen.buckets.withLock { $0 = Set(names) }
                }
                send(SocketReply.channel(number, topic.rawValue, json: report))
            } catch {
                send(SocketReply.error(channel: number, code: 500, message: "the server could not read the \(topic.rawValue) report: \(error)"))
            }
            // Cancelled (the channel closed): the stream then ends the loop.
            try? await Task.sleep(for: Self.pace)
        }
    }
}

/// What a presence feed knows between its reads: the presence buckets of its last report (a
/// change to one of them moves the report), and whether a settling read is due.
private final class PresenceSeen: Sendable {
    let buckets = Mutex<Set<String>>([])
    let settling = Atomic<Bool>(false)
}
