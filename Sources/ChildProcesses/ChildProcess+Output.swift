#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ChildProcess {
    /// Reads what the child printed into `buffer`, blocking until some comes: the count read,
    /// 0 once the child and its own children have closed the pipe (or without ``Output/captured``).
    /// Retried when a signal interrupts it: a child exiting raises SIGCHLD.
    public func readOutput(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let outputDescriptor else { return 0 }
        while true {
            let count = read(outputDescriptor, buffer.baseAddress, buffer.count)
            if count < 0 && errno == EINTR { continue }
            return max(count, 0)
        }
    }

    /// Everything the child prints, until it closes the pipe. Blocks: call it on a thread of
    /// its own, never the cooperative pool's.
    public func readAllOutput() -> [UInt8] {
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { readOutput(into: $0) }
            guard count > 0 else { return output }
            output.append(contentsOf: chunk[0..<count])
        }
    }
}
