import Foundation

/// The `lockstep` binary whose server a benchmark starts in a process of its own: the one
/// built beside this `lockstep-bench` (same build folder, same configuration), or the one
/// `LOCKSTEP_BINARY` names.
enum LockstepBinary {
    static var path: String {
        if let named = ProcessInfo.processInfo.environment["LOCKSTEP_BINARY"], !named.isEmpty { return named }
        return Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("lockstep").path
    }
}
