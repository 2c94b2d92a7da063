import Hummingbird

extension LockstepServices {
    /// The caller of an admin API route, who must hold the app's admin token and act as
    /// itself: 401 for a missing or wrong token, 403 for a user's token (or the admin acting
    /// for a user), so that the console can say which.
    func requireAdmin(_ request: Request, app: String) async throws -> AccountService.Identity {
        let identity = try await mappingServiceErrors {
            try await accounts.authenticate(appID: app, token: request.accessToken)
        }
        guard identity.isAdmin, identity.userID == nil else {
            throw HTTPError(.forbidden, message: "this is the admin API: only the app's admin token may use it, not a user's token")
        }
        return identity
    }
}
