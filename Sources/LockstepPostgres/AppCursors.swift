/// How far a node has followed each app's commits.
///
/// Every commit of an app takes the next number of the app's sequence under the app's row
/// lock, and PostgreSQL delivers notifications in commit order, so a listener that misses
/// nothing sees 1, 2, 3… for each app. A number already passed is one the node caught up on
/// from the database; a number beyond the next one means notifications were lost, and the
/// changes in between must be read from the database.
struct AppCursors {
    enum Step: Equatable {
        /// The very next commit: handle this notification.
        case next
        /// Already handled (caught up from the database): ignore it.
        case passed
        /// Notifications were lost: read the changes after this position up to the notified one.
        case gap(after: Int64)
    }

    private var positions: [String: Int64] = [:]

    /// How far the node has followed `app`; 0 for an app it never heard of (which is new: it had
    /// no commits when the node started following).
    func position(of app: String) -> Int64 {
        positions[app] ?? 0
    }

    /// Where a notified run of positions stands: ``Step/next`` when it takes up right after
    /// the cursor (or overlaps what was passed, whose rest is then next). The cursor moves only
    /// with ``pass(_:through:)``, once the notification is handled, so a failure leaves it for
    /// the next catch-up.
    func step(_ app: String, at positions: ClosedRange<Int64>) -> Step {
        let last = self.position(of: app)
        if positions.upperBound <= last { return .passed }
        return positions.lowerBound <= last + 1 ? .next : .gap(after: last)
    }

    /// Marks everything up to `position` as followed.
    mutating func pass(_ app: String, through position: Int64) {
        positions[app] = max(self.position(of: app), position)
    }
}
