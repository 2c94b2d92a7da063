import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One measured load of `lockstep-bench fanout --processes`: `subscribers` subscriptions spread over
/// `processes` child processes, all on one server, and one writer in this process sending
/// `writes` changes at `writesPerSecond`. The same load, with the same generator, runs against
/// Lockstep and against Redis.
struct FanoutLoad {
    var subscribers: Int
    var processes: Int
    var writesPerSecond: Double
    var writes: Int

    struct Measurement {
        var server: String
        var subscribers: SubscriberSummary
        var writes: Int
        var writeRefusals: [String: Int]
        /// Writes the server had not answered 30 s after the last was sent.
        var writesUnanswered: Int
        /// The server's CPU from the first write until every subscriber process reported.
        var serverCPUSeconds: Double
        /// The server's memory then, every subscriber still connected.
        var serverMemory: ProcessMemory?
        /// Readers the server's own log says it closed for falling behind.
        var slowReadersLogged: Int
        /// This process's CPU over the same window: the writer's.
        var writerCPUSeconds: Double
        /// From the first write to the last delivery.
        var seconds: Double

        var deliveriesPerSecond: Double { Double(subscribers.deliveries) / max(seconds, 1e-9) }
        var serverCPUPerDelivery: Double { serverCPUSeconds / Double(max(1, subscribers.deliveries)) }
    }

    /// Runs the load on `server`: each subscriber process gets `subscriberArguments` (which
    /// server, where, which bucket or channel), and `openWriter` connects the writer once every
    /// subscription is open.
    func run(
        on server: FanoutServer, subscriberArguments: [String], openWriter: () async throws -> any FanoutWriter
    ) async throws -> Measurement {
        let children = try SubscriberProcesses(
            processes: processes, subscriptions: subscribers, arguments: subscriberArguments + ["--expect", String(writes)])
        defer { children.stop() }
        try await children.waitUntilReady(timeout: .seconds(300))
        let writer = try await openWriter()
        let serverCPU = CPUTime(including: [server.pid])
        let ownCPU = Self.ownCPUSeconds()
        let firstWrite = try await PacedWrites.run(writer, writes: writes, perSecond: writesPerSecond)
        try await writer.answers.wait(for: writes, until: .now + .seconds(30))
        children.signalEndOfWriting()
        let summary = SubscriberSummary.total(try await children.summaries(timeout: .seconds(300)))
        let serverCPUSeconds = serverCPU.elapsed()
        let memory = ProcessMemory(pid: server.pid)
        let writerCPUSeconds = Self.ownCPUSeconds() - ownCPU
        let answers = writer.answers
        await writer.close()
        return Measurement(
            server: server.name, subscribers: summary, writes: writes, writeRefusals: answers.refusals,
            writesUnanswered: max(0, writes - answers.answered), serverCPUSeconds: serverCPUSeconds, serverMemory: memory,
            slowReadersLogged: server.slowReadersClosed, writerCPUSeconds: writerCPUSeconds,
            seconds: Double((summary.lastDelivery ?? firstWrite) - firstWrite) / 1e9)
    }

    /// This process's CPU time so far, its children's apart.
    private static func ownCPUSeconds() -> Double {
        var reading = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &reading)
        return Double(reading.tv_sec) + Double(reading.tv_nsec) / 1e9
    }
}
