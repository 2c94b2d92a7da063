import Foundation

/// A process's memory as /proc/PID/status tells it.
struct ProcessMemory {
    /// Resident set size (VmRSS), in bytes.
    var resident: Int
    /// The highest resident set size so far (VmHWM), in bytes.
    var peakResident: Int

    init?(pid: Int32) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func kilobytes(_ field: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
        }
        guard let resident = kilobytes("VmRSS"), let peak = kilobytes("VmHWM") else { return nil }
        self.resident = resident * 1024
        self.peakResident = peak * 1024
    }
}
