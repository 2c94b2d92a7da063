/// Who last wrote a member of an object, and when in corrected time: the order peers merge by.
///
/// The order is total, so that every device picks the same winner whatever order changes
/// reach it in: the later corrected time, then (for equal times) the greater client id, then the
/// greater change id. An edit with no time sorts before every timed one.
struct MemberStamp: Sendable, Equatable, Comparable {
    var time: Int64?
    var clientID: String
    var changeID: String

    static func < (lhs: MemberStamp, rhs: MemberStamp) -> Bool {
        if lhs.time != rhs.time { return (lhs.time ?? .min) < (rhs.time ?? .min) }
        if lhs.clientID != rhs.clientID { return lhs.clientID.utf8.lexicographicallyPrecedes(rhs.clientID.utf8) }
        return lhs.changeID.utf8.lexicographicallyPrecedes(rhs.changeID.utf8)
    }
}
