#if canImport(Darwin)
import Darwin
#endif
import Foundation

/// The operating system's identity for the current boot.
///
/// - Linux: `/proc/sys/kernel/random/boot_id`, a random UUID the kernel draws at boot.
/// - Darwin: the `kern.bootsessionuuid` sysctl, likewise a UUID per boot; failing that, the
///   `KERN_BOOTTIME` timestamp. The UUID comes first because macOS moves the boot time when
///   someone sets the clock, which would make a manual clock change look like a reboot.
public struct SystemBootIdentity: BootIdentitySource {
    /// The operating system's source; it has no settings.
    public init() {}

    /// This boot's identity. Throws when the system does not tell (a Linux without `/proc`):
    /// the clock then keeps no calibration across launches.
    public func currentBootIdentity() throws -> String {
        #if canImport(Darwin)
        if let session = Self.bootSessionUUID() { return session }
        return try Self.bootTime()
        #else
        let identity = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        return identity.trimmingCharacters(in: .whitespacesAndNewlines)
        #endif
    }

    #if canImport(Darwin)
    private static func bootSessionUUID() -> String? {
        var size = 0
        guard sysctlbyname("kern.bootsessionuuid", nil, &size, nil, 0) == 0, size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard sysctlbyname("kern.bootsessionuuid", &bytes, &size, nil, 0) == 0 else { return nil }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func bootTime() throws -> String {
        var name = [CTL_KERN, KERN_BOOTTIME]
        var bootTime = timeval()
        var size = MemoryLayout<timeval>.size
        guard sysctl(&name, 2, &bootTime, &size, nil, 0) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL)
        }
        return "boottime:\(bootTime.tv_sec).\(bootTime.tv_usec)"
    }
    #endif
}
