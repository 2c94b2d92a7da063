#if canImport(Glibc)
import Glibc
#endif

/// The open-file limit: thousands of sockets need more than the usual soft limit of 1024.
enum FileDescriptorLimit {
    /// Raises this process's soft limit to its hard limit (the processes it starts after this
    /// inherit it), and returns the limit in force.
    @discardableResult
    static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
