import LockstepCore

/// The Lockstep fan-out writer: one socket with channel 0 on the shared bucket, sending each
/// change as `0:c:{…}`. The server answers every change on the sender's own channel: its
/// broadcast (the acknowledgement) or an error object, `{"…","ccids":[…],"error":<code>}`.
struct StreamWriter: FanoutWriter {
    let answers: WriterAnswers
    private let socket: BenchSocket
    private let run: String

    static func open(url: String, token: String, bucket: String) async throws -> StreamWriter {
        let answers = WriterAnswers()
        let fields: JSONValue = ["name": .string(bucket), "token": .string(token), "clientid": "fanout-writer", "api": "1.1", "cmd": "i::::1000"]
        let socket = try await BenchSocket.open(url: url, initialization: "0:init:\(fields)") { message in
            guard message.hasPrefix("0:c:[") else { return }
            countAnswers(in: message, into: answers)
        }
        return StreamWriter(answers: answers, socket: socket, run: String(bucket.suffix(8)))
    }

    func send(_ number: Int, sentAt: Int64) async throws {
        try await socket.send("0:c:\(SentAt.change(number, ccid: "\(run)-\(number)", nanoseconds: sentAt))")
    }

    func close() async {
        await socket.close()
    }

    /// Each change in a `c:` message names its ccids once; an error object also has `"error":`.
    private static func countAnswers(in message: String, into answers: WriterAnswers) {
        let changes = message.ranges(of: #""ccids":"#).count
        var refused = 0
        for range in message.ranges(of: #""error":"#) {
            let code = message[range.upperBound...].prefix(while: \.isNumber)
            answers.refused("error \(code)")
            refused += 1
        }
        answers.accepted(changes - refused)
    }
}
