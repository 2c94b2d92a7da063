import LockstepCore

extension SocketDispatcher {
    /// `N:c:{change}`: queues one change for the store's writer (merge rules, rebasing a
    /// change made against an older version, a repeated ccid never applied twice) and goes on
    /// reading: a client that pipelines its changes has them share flushes.
    ///
    /// An accepted change is not answered here: once its group is durable the hub announces
    /// it to every channel of the bucket, this one included, and that announcement is the
    /// sender's acknowledgement. A refused change is answered to this channel only, as
    /// `N:c:[{"clientid","id","ccids","error","message"}]`, always in its place among the
    /// answers: when the store refused it (``ChangeWriter``), and when it could not be read,
    /// named or authorized, once the changes this connection sent before it are answered.
    func change(_ session: ChannelSession, _ payload: String?) async {
        let refusals = ChangeRefusals(connection: connection, session: session)
        let message: JSONValue
        do {
            message = try JSONValue(parsing: payload ?? "")
        } catch {
            await connection.pipeline.drained()
            return refusals.refuse(code: 400, "the change is not valid JSON: \(error)", message: nil)
        }
        let change: IncomingChange
        let scope: BucketScope
        do {
            change = try ChangeMessage.parse(message, clientID: session.clientID)
            try BucketService.checkNames(of: change)
            // The role was decided at `init`; losing it revokes the channel.
            try await services.authorize(session.access, for: session.identity, writing: true)
            scope = session.access.scope
        } catch {
            // Nothing sent after it is read until it is answered, so this keeps the order whole.
            await connection.pipeline.drained()
            return refusals.refuse(error, message: message)
        }
        let connection = connection
        let registry = services.connections
        await connection.pipeline.reserve()
        services.buckets.submit(change, to: scope, by: session.identity.author) { result in
            switch result {
            case .success(let event):
                registry.accepted(event, on: connection.info.id, userID: session.identity.userID)
            case .failure(let error):
                refusals.refuse(error, message: message)
            }
            // Released once answered: the connection's end waits for it (``ChangePipeline/drained()``).
            connection.pipeline.release()
        }
    }
}

/// How a channel answers a change it refuses.
private struct ChangeRefusals: Sendable {
    let connection: SocketConnection
    let session: ChannelSession

    func refuse(_ error: any Error, message: JSONValue) {
        switch error {
        case let rejection as ChangeRejection:
            refuse(code: rejection.code, rejection.message, message: message)
        case let error as AccountError:
            refuse(code: error.status.rawValue, error.message, message: message)
        default:
            connection.logger.error("channel \(session.number): applying a change failed: \(error)")
            refuse(code: 500, "the server failed to apply the change; send it again", message: message)
        }
    }

    func refuse(code: Int, _ problem: String, message: JSONValue?) {
        let error = ChangeMessage.rejection(
            code: code, message: problem, key: message?["id"]?.stringValue ?? "", changeID: message?["ccid"]?.stringValue ?? "",
            clientID: session.clientID)
        connection.outbox.enqueueAfterAnnouncements(.text(SocketReply.channel(session.number, "c", json: [error])))
    }
}
