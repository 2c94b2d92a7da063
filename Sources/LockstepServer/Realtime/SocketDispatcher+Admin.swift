extension SocketDispatcher {
    /// `N:init:{"name":"__admin__","token":…}`: opens the console's channel (``AdminChannel``)
    /// for the app's admin token alone, refused as the admin API refuses (401 a token that is
    /// not valid, 403 a user's).
    mutating func initializeAdmin(_ number: Int, token: String) async {
        guard makeRoom(for: number) else { return }
        let identity: AccountService.Identity
        do {
            identity = try await services.accounts.authenticate(appID: connection.info.appID, token: token)
            if identity.isAdmin, let refusal = services.origins.adminTokenRefusal(from: connection.caller) {
                throw AccountError(.forbidden, refusal)
            }
        } catch let error as AccountError {
            return refuseAuth(number, Self.code(error), error.message)
        } catch {
            return failAuth(number, error)
        }
        guard identity.isAdmin, identity.userID == nil else {
            return refuseAuth(number, 403, "\(AdminChannel.name) is the console's channel: only the app's admin token may open it, not a user's token")
        }
        let outbox = connection.outbox
        adminChannels[number] = AdminChannel(
            number: number, appID: identity.appID, reports: AdminReports(services: services), signals: services.consoleSignals,
            send: { message in outbox.enqueue(.text(message)) })
        connection.channelAuthorized(identity)
        send(SocketReply.channel(number, "auth", "admin"))
    }

    /// A command of an admin channel: `stats`, `presence` or `webhooks` starts that feed.
    func runAdmin(_ command: String, on channel: AdminChannel) {
        guard let topic = AdminChannel.Topic(rawValue: command) else {
            return send(SocketReply.error(
                channel: channel.number, code: 400, message: "unknown command \"\(command.prefix(40))\" on \(AdminChannel.name): use stats, presence or webhooks"))
        }
        channel.follow(topic)
    }
}
