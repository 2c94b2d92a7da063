#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension ChildProcess {
    /// Why a child could not be started.
    public struct SpawnError: Error, CustomStringConvertible {
        public let executable: String
        public let step: String
        public let code: Int32

        public var description: String { "cannot start \(executable): \(step): \(String(cString: strerror(code)))" }
    }

    /// Starts `executable` (a path; no PATH lookup) with `arguments`, in this process's
    /// environment with `environment` added over it.
    public static func spawn(
        _ executable: String, arguments: [String] = [], environment: [String: String] = [:], output: Output
    ) throws(SpawnError) -> ChildProcess {
        func check(_ code: Int32, _ step: String) throws(SpawnError) {
            if code != 0 { throw SpawnError(executable: executable, step: step, code: code) }
        }
        // Close-on-exec, both ends: the child gets only the duplicates the file actions make,
        // and no other child holds the write end open after this one exits.
        var pipeEnds: [Int32] = [-1, -1]
        if output == .captured { try check(openPipe(&pipeEnds) == 0 ? 0 : errno, "pipe") }
        var spawned = false
        defer {
            if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
            if !spawned && pipeEnds[0] >= 0 { close(pipeEnds[0]) }
        }

        var actions = SpawnFileActions()
        defer { posix_spawn_file_actions_destroy(&actions) }
        try check(posix_spawn_file_actions_init(&actions), "file actions")
        try check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0), "stdin")
        switch output {
        case .captured:
            try check(posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1), "stdout")
            try check(posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2), "stderr")
        case .discarded:
            try check(posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0), "stdout")
            try check(posix_spawn_file_actions_adddup2(&actions, 1, 2), "stderr")
        case .errorsOnly:
            try check(posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0), "stdout")
        case .inherited:
            break
        }
        // After the duplications, which read the pipe's write end.
        for descriptor in openDescriptorsAboveStandardError() {
            try check(posix_spawn_file_actions_addclose(&actions, descriptor), "closing descriptor \(descriptor)")
        }

        var attributes = SpawnAttributes()
        defer { posix_spawnattr_destroy(&attributes) }
        try check(posix_spawnattr_init(&attributes), "attributes")
        try check(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)), "flags")
        try check(posix_spawnattr_setpgroup(&attributes, 0), "process group")
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        try check(posix_spawnattr_setsigmask(&attributes, &noSignals), "signal mask")
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        try check(posix_spawnattr_setsigdefault(&attributes, &allSignals), "signal defaults")

        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        let argv = cStrings([executable] + arguments)
        let envp = cStrings(variables.map { "\($0.key)=\($0.value)" })
        defer { for string in argv + envp { free(string) } }
        var pid: pid_t = 0
        try check(posix_spawn(&pid, executable, &actions, &attributes, argv, envp), "posix_spawn")
        spawned = true
        return ChildProcess(pid: pid, outputDescriptor: output == .captured ? pipeEnds[0] : nil)
    }
}

#if canImport(Glibc)
private typealias SpawnFileActions = posix_spawn_file_actions_t
private typealias SpawnAttributes = posix_spawnattr_t

/// A pipe in effect: Swift's Glibc module leaves out `pipe2`, and a socket pair is the other
/// call that opens both ends close-on-exec at once, so no child started by another thread in
/// between can inherit them.
private func openPipe(_ ends: inout [Int32]) -> Int32 {
    socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends)
}
#else
private typealias SpawnFileActions = posix_spawn_file_actions_t?
private typealias SpawnAttributes = posix_spawnattr_t?

/// Darwin has no `pipe2`: a child another thread starts between the two calls may inherit the pipe.
private func openPipe(_ ends: inout [Int32]) -> Int32 {
    guard pipe(&ends) == 0 else { return -1 }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return 0
}
#endif

/// A NULL-terminated array of C strings, as `argv` and `envp`, for `free` once spawned.
private func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] {
    strings.map { strdup($0) } + [nil]
}
