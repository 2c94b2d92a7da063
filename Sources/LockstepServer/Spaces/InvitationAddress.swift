/// The address a space invitation is for: the username its user signs in (or will sign in)
/// with, which must look like an email address.
///
/// Checked, not verified: `local@domain.tld` with no spaces, one `@`, a dot inside the domain,
/// and a valid ``Username`` (so that the user it waits for can exist).
public enum InvitationAddress {
    /// Checks `raw`; throws a 400 saying what is wrong with it. Returns the address as a
    /// username is stored (NFC).
    public static func validate(_ raw: String?) throws(AccountError) -> String {
        guard let raw, !raw.isEmpty else { throw AccountError(.badRequest, "an invitation needs the \"email\" to invite") }
        let shown = raw.prefix(80)
        let parts = raw.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !raw.contains(where: \.isWhitespace) else {
            throw AccountError(.badRequest, "\"\(shown)\" is not an email address: use name@example.com")
        }
        let domain = parts[1]
        guard let dot = domain.firstIndex(of: "."), dot != domain.startIndex, domain.last != "." else {
            throw AccountError(.badRequest, "\"\(shown)\" is not an email address: its domain needs a dot, as in name@example.com")
        }
        return try Username(raw).display
    }
}
