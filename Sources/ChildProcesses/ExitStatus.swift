/// How a child process ended.
public enum ExitStatus: Sendable, Equatable, CustomStringConvertible {
    /// It exited with this code.
    case exited(Int32)
    /// This signal killed it.
    case killed(signal: Int32)

    /// Decodes a status from `waitpid`, of a child that ended (not stopped: no `WUNTRACED`).
    init(waitStatus: Int32) {
        let signal = waitStatus & 0x7f
        self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .killed(signal: signal)
    }

    /// The exit code, or the number of the signal that killed it: what
    /// `Foundation.Process.terminationStatus` reports.
    public var terminationStatus: Int32 {
        switch self {
        case .exited(let code): code
        case .killed(let signal): signal
        }
    }

    public var description: String {
        switch self {
        case .exited(let code): "exited with \(code)"
        case .killed(let signal): "killed by signal \(signal)"
        }
    }
}
