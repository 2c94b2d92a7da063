import LockstepCore

extension SocketDispatcher {
    /// `N:init:{"name","token","clientid"|"client_id","api","app_id"?,"cmd"?,"lockstep"?,…}`: authorizes
    /// channel N for a bucket, answers `N:auth:<username>` (or `N:auth:{"msg","code"}`), then
    /// runs `cmd`, the first request (Android sends its first `i` or `cv` only there).
    ///
    /// Fields a client sends beyond these (`library`, `version`, `build`…) are ignored; `api`
    /// may be a string or a number.
    mutating func initialize(_ number: Int, _ payload: String?) async {
        guard let payload, case .object(let fields)? = try? JSONValue(parsing: payload) else {
            return refuseAuth(number, 400, "init needs a JSON object: {\"name\",\"token\",\"clientid\",\"api\"}")
        }
        guard case .string(let bucket)? = fields["name"] else {
            return refuseAuth(number, 400, "init needs the bucket's \"name\"")
        }
        guard case .string(let token)? = fields["token"], !token.isEmpty else {
            return refuseAuth(number, 401, "init needs an access \"token\"")
        }
        if case .string(let clientID)? = fields["clientid"] ?? fields["client_id"], !ClientIdentifier.isValid(clientID) {
            return refuseAuth(number, 400, "clientid must be \(ClientIdentifier.rule)")
        }
        if let appID = fields["app_id"]?.stringValue, appID != connection.info.appID {
            return refuseAuth(number, 400, "app_id \(appID) is not the app of this socket, \(connection.info.appID)")
        }
        if bucket == AdminChannel.name { return await initializeAdmin(number, token: token) }
        var command: (name: String, payload: String?)?
        switch fields["cmd"] {
        case nil, .null?:
            break
        case .string(let text)?:
            guard case .channel(_, let name, let payload) = SocketMessage("\(number):\(text)"), name != "init" else {
                return refuseAuth(number, 400, "init's cmd must be a request such as \"i::::100\" or \"cv:<cv>\"")
            }
            command = (name, payload)
        default:
            return refuseAuth(number, 400, "init's cmd must be a string")
        }
        guard makeRoom(for: number) else { return }

        // Claimed before it is checked, so that a revocation after the check finds this socket.
        let tokenHash = Secrets.hash(token)
        services.connections.claimToken(tokenHash, on: connection.info.id, selfContained: CompactJWS.looksLikeJWT(token))
        let identity: AccountService.Identity
        let access: BucketAccess
        // A space's channel is claimed before its member's role is read, for the same reason.
        var spaceClaim: SpaceChannels.Claim?
        do {
            // The admin token may name a user whose buckets it opens (as X-Simperium-User does over
            // HTTP): the console follows a user's bucket so. Other tokens' "user" is ignored.
            identity = try await services.accounts.authenticate(
                appID: connection.info.appID, token: token, actingUserID: fields["user"]?.stringValue)
            if identity.isAdmin, let refusal = services.origins.adminTokenRefusal(from: connection.caller) {
                throw AccountError(.forbidden, refusal)
            }
            if let name = SpaceBucketName(bucket) {
                spaceClaim = services.spaceChannels.claim(appID: identity.appID, space: name.space, userID: identity.userID)
            }
            access = try await services.access(for: identity, bucket: bucket)
        } catch {
            services.connections.releaseToken(tokenHash, on: connection.info.id)
            if let spaceClaim { services.spaceChannels.release(spaceClaim) }
            switch error {
            case let error as AccountError: return refuseAuth(number, Self.code(error), error.message)
            case let rejection as ChangeRejection: return refuseAuth(number, rejection.code, rejection.message)
            default: return failAuth(number, error)
            }
        }
        // The admin token is not a stored token: nothing to watch.
        if identity.token == nil { services.connections.releaseToken(tokenHash, on: connection.info.id) }
        // The session subscribes to the bucket at once and sends nothing until the client asks
        // (`cv:` or `i:`, possibly as `cmd`).
        let spaceChannels = services.spaceChannels
        let claim = spaceClaim
        let session = ChannelSession(
            number: number, bucket: bucket, access: access, identity: identity,
            clientID: Self.clientID(fields["clientid"] ?? fields["client_id"]) ?? "\(connection.info.id)-\(number)",
            extensions: Self.isTrue(fields["lockstep"]),
            environment: sessionEnvironment,
            onClose: { if let claim { spaceChannels.release(claim) } })
        if let claim, let grant = access.space, !spaceChannels.confirm(claim, grant: grant, revoke: { [session] reason in session.revoke(reason) }) {
            // Removed while the role was read: answered as any stranger is now.
            session.close()
            if identity.token != nil { services.connections.releaseToken(tokenHash, on: connection.info.id) }
            return refuseAuth(number, ChangeRejection.Reason.notFound.rawValue, "there is no bucket \(bucket)")
        }
        channels[number] = session
        connection.channelAuthorized(identity)
        // The admin watching a user's bucket is not that user's connection: it keeps none of
        // their `user` presence alive.
        if let userID = identity.userID, !identity.isAdmin { services.connections.authenticated(connection.info.id, userID: userID) }
        // Usernames never parse as JSON (AccountService refuses such names), so clients cannot
        // mistake this for an error.
        send(SocketReply.channel(number, "auth", session.identity.username ?? session.identity.userID ?? "admin"))
        if let command { await run(command.name, command.payload, on: session) }
    }

    private var sessionEnvironment: ChannelSession.Environment {
        let connection = connection
        return ChannelSession.Environment(
            store: services.store, hub: services.hub, outbox: connection.outbox, encoding: connection.encoding,
            pageSize: limits.defaultIndexPage, fail: { problem in connection.fail(problem) })
    }

    /// Closes channel `number` if it is open, to open it anew; refuses the init when the
    /// connection has as many channels as it may.
    mutating func makeRoom(for number: Int) -> Bool {
        let open = channels.count + adminChannels.count
        if channels[number] == nil && adminChannels[number] == nil && open >= limits.maximumChannelsPerConnection {
            refuseAuth(number, 400, "a connection may open at most \(limits.maximumChannelsPerConnection) channels")
            return false
        }
        channels.removeValue(forKey: number)?.close()
        adminChannels.removeValue(forKey: number)?.close()
        return true
    }

    /// The code of `init`'s answer to a refused token: 400, 403 (the admin token from a page
    /// not listed for it), or 401.
    static func code(_ error: AccountError) -> Int {
        switch error.status {
        case .badRequest: 400
        case .forbidden: 403
        default: 401
        }
    }

    func failAuth(_ number: Int, _ error: any Error) {
        connection.logger.error("init of channel \(number) failed: \(error)")
        refuseAuth(number, 500, "the server could not authorize the channel; try again")
    }

    func refuseAuth(_ number: Int, _ code: Int, _ message: String) {
        send(SocketReply.channel(number, "auth", json: ["msg": .string(message), "code": .integer(Int64(code))]))
    }

    /// Whether an optional flag was sent as `true`, a non-zero number or a non-empty string.
    private static func isTrue(_ value: JSONValue?) -> Bool {
        switch value {
        case .bool(let flag)?: flag
        case .integer(let number)?: number != 0
        case .string(let text)?: !text.isEmpty && text != "0" && text != "false"
        default: false
        }
    }

    /// A client id as sent: a string, or a number some clients use.
    private static func clientID(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)? where !text.isEmpty: text
        case .integer(let number)?: String(number)
        default: nil
        }
    }
}
