import Foundation

/// Writes a line to standard output at once, unbuffered, so that a process reading ours (a
/// test waiting for "listening on", a script capturing credentials) sees it immediately.
public func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
