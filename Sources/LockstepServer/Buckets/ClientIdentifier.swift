/// The client id a change is recorded under: what a client calls itself at `init` (or in
/// `?clientid=`), or the `author` of a change it carries for a peer. Any client picks its own,
/// so it proves nothing; it breaks ties of edit times, and is bounded so that every change
/// record stays small.
enum ClientIdentifier {
    /// The longest client id, in UTF-8 bytes.
    static let maximumBytes = 256

    static func isValid(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= maximumBytes && !id.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// What a refusal says.
    static let rule = "1 to \(maximumBytes) bytes, no control characters"
}
