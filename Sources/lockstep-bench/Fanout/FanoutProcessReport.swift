import Foundation

/// How `lockstep-bench fanout --processes` prints its figures: one table row per server, what lies
/// behind each row, and Lockstep's figures against Redis's.
enum FanoutProcessReport {
    static var header: String {
        row("server", "deliveries", "missing", "dropped", "refused", "p50 ms", "p99 ms", "max ms", "deliveries/s", "CPU µs/deliv", "RSS MiB")
    }

    static func row(_ measurement: FanoutLoad.Measurement) -> String {
        let summary = measurement.subscribers
        return row(
            measurement.server, "\(summary.deliveries)/\(summary.expected)", "\(summary.missing)", "\(summary.dropped)",
            "\(measurement.writeRefusals.values.reduce(0, +))", milliseconds(summary.latencies.percentile(0.5)),
            milliseconds(summary.latencies.percentile(0.99)), milliseconds(summary.latencies.maximum),
            String(format: "%.0f", measurement.deliveriesPerSecond), String(format: "%.2f", measurement.serverCPUPerDelivery * 1e6),
            measurement.serverMemory.map { String(format: "%.1f", Double($0.resident) / 1_048_576) } ?? "?")
    }

    /// The lines behind a row: where the time went, and every loss by its reason.
    static func details(_ measurement: FanoutLoad.Measurement) -> [String] {
        let summary = measurement.subscribers
        let name = measurement.server
        var lines = [
            "\(name): " + String(
                format: "server CPU %.2f s over %.2f s from the first write to the last delivery (%.0f %% of a core); RSS %.1f MiB, peak %.1f MiB",
                measurement.serverCPUSeconds, measurement.seconds, 100 * measurement.serverCPUSeconds / max(measurement.seconds, 1e-9),
                Double(measurement.serverMemory?.resident ?? 0) / 1_048_576, Double(measurement.serverMemory?.peakResident ?? 0) / 1_048_576),
            "\(name): " + String(
                format: "the load's own CPU: writer %.2f s, subscriber processes %.2f s (all their lives)", measurement.writerCPUSeconds,
                summary.processCPUSeconds),
        ]
        if summary.dropped > 0 || measurement.slowReadersLogged > 0 {
            lines.append(
                "\(name): \(summary.dropped) of \(summary.subscriptions) subscriptions dropped (\(describe(summary.endings))); "
                    + "the server's log names \(measurement.slowReadersLogged) slow readers closed")
        }
        if !measurement.writeRefusals.isEmpty { lines.append("\(name): writes refused: \(describe(measurement.writeRefusals))") }
        if measurement.writesUnanswered > 0 { lines.append("\(name): \(measurement.writesUnanswered) writes never answered") }
        if summary.duplicates > 0 { lines.append("\(name): \(summary.duplicates) deliveries arrived twice") }
        return lines
    }

    /// Lockstep's figures over Redis's: how many times Redis's each is.
    static func ratios(lockstep: FanoutLoad.Measurement, redis: FanoutLoad.Measurement) -> String {
        func ratio(_ a: Double, _ b: Double) -> String { b > 0 ? String(format: "×%.2f", a / b) : "—" }
        let (ours, theirs) = (lockstep.subscribers.latencies, redis.subscribers.latencies)
        return "lockstep / \(redis.server): CPU per delivery \(ratio(lockstep.serverCPUPerDelivery, redis.serverCPUPerDelivery)), "
            + "p50 \(ratio(Double(ours.percentile(0.5)), Double(theirs.percentile(0.5)))), "
            + "p99 \(ratio(Double(ours.percentile(0.99)), Double(theirs.percentile(0.99)))), "
            + "RSS \(ratio(Double(lockstep.serverMemory?.resident ?? 0), Double(redis.serverMemory?.resident ?? 0)))"
    }

    static func describe(_ counts: [String: Int]) -> String {
        counts.sorted { $0.value > $1.value }.map { "\($0.value) × \($0.key)" }.joined(separator: ", ")
    }

    private static func milliseconds(_ microseconds: Int) -> String {
        String(format: "%.2f", Double(microseconds) / 1000)
    }

    private static func row(_ cells: String...) -> String {
        zip(cells, [8, 16, 8, 8, 8, 8, 8, 8, 13, 13, 8]).enumerated().map { index, pair in
            let (cell, width) = pair
            let padding = String(repeating: " ", count: max(0, width - cell.count))
            return index == 0 ? cell + padding : padding + cell
        }.joined(separator: " ")
    }
}
