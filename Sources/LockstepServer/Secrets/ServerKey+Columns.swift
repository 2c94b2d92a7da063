/// How each sealed column is bound to its row: a value sealed for one row does not open as
/// another's, so copying an attacker's own sealed password hash into a victim's row, or one
/// app's peer secret into another app, gets nowhere.
extension ServerKey {
    public func sealPeerSecret(_ secret: String, appID: String) -> String {
        seal(secret, context: Self.peerSecretContext(appID: appID))
    }

    public func openPeerSecret(_ stored: String, appID: String) throws(ServerKeyError) -> String {
        try open(stored, context: Self.peerSecretContext(appID: appID))
    }

    public func sealPasswordHash(_ hash: String, appID: String, userID: String) -> String {
        seal(hash, context: Self.passwordContext(appID: appID, userID: userID))
    }

    public func openPasswordHash(_ stored: String, appID: String, userID: String) throws(ServerKeyError) -> String {
        try open(stored, context: Self.passwordContext(appID: appID, userID: userID))
    }

    private static func peerSecretContext(appID: String) -> String {
        "lockstep peer secret\u{0}\(appID)"
    }

    private static func passwordContext(appID: String, userID: String) -> String {
        "lockstep password hash\u{0}\(appID)\u{0}\(userID)"
    }
}
