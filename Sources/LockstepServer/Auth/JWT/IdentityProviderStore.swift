public import LockstepCore

/// Where each app's identity provider settings (``IdentityProviderSettings``, as their JSON)
/// are kept: one row per app, read by every node.
public protocol IdentityProviderStore: Sendable {
    /// The app's settings; `nil` when the app accepts no JWTs.
    func identityProvider(appID: String) async throws -> JSONObject?
    /// Replaces the app's settings, or with `nil` removes them; returns whether there were any.
    @discardableResult
    func setIdentityProvider(appID: String, settings: JSONObject?, at time: Int64) async throws -> Bool
}
