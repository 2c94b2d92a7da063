#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The descriptors this process has open above standard error, for the child to close.
///
/// Many descriptors here are not close-on-exec (NIO's sockets, for one), and a child that
/// inherits a server's connection keeps it open after the server closes it. `Foundation.Process`
/// closed them all in the child; glibc's `posix_spawn_file_actions_addclosefrom_np` would too,
/// but Swift's Glibc module leaves it out. A descriptor opened after this list is made and
/// before the child starts is inherited, as it would be with no list; one closed meanwhile
/// is skipped by glibc's close action (`EBADF` is ignored for a descriptor in range).
///
/// Each name is read up to its NUL, within the entry: the defect this library exists for
/// was a copy of the whole `d_name` array, past the end of the entry.
func openDescriptorsAboveStandardError() -> [Int32] {
    #if os(Linux)
    let listing = "/proc/self/fd"
    #else
    let listing = "/dev/fd"
    #endif
    guard let directory = opendir(listing) else { return [] }
    defer { closedir(directory) }
    let own = dirfd(directory)
    var descriptors: [Int32] = []
    while let entry = readdir(directory) {
        let name = withUnsafePointer(to: &entry.pointee.d_name) { name in
            name.withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) }
        }
        if let descriptor = Int32(name), descriptor > 2, descriptor != own { descriptors.append(descriptor) }
    }
    return descriptors
}
