/// One subscriber of a Lockstep server, as a fan-out benchmark's child process runs it: a
/// ``BenchSocket`` with channel 0 opened on the shared bucket, whose announcements are timed into
/// its tally. It sends nothing after its `init`; WSClient answers the server's pings, which is
/// all an idle client has to do to stay connected.
enum StreamSubscription {
    /// Opens the subscription and returns once the server authorized it; when the connection
    /// ends, `tally` records why.
    static func open(url: String, token: String, bucket: String, clientID: String, tally: SubscriptionTally) async throws {
        let socket = try await BenchSocket.open(url: url, initialization: FanoutRound.subscription(bucket: bucket, token: token, clientID: clientID)) { text in
            let now = WallClock.now()
            if text.hasPrefix("0:c:[") { tally.record(stamps: SentAt.stamps(in: text), at: now) }
        }
        Task { tally.end(await socket.ending()) }
    }
}
