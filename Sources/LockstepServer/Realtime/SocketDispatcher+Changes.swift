import LockstepCore

extension SocketDispatcher {
    /// `N:c:{change}`: applies one change through ``BucketService`` (merge rules, rebasing a
    /// change made against an older version, a repeated ccid never applied twice).
    ///
    /// An accepted change is not answered here: the hub announces it to every channel of the
    /// bucket, this one included, and that announcement is the sender's acknowledgement. A
    /// refused change is answered to this channel only, as
    /// `N:c:[{"clientid","id","ccids","error","message"}]`.
    func change(_ session: ChannelSession, _ payload: String?) async {
        let message: JSONValue
        do {
            message = try JSONValue(parsing: payload ?? "")
        } catch {
            return refuse(session, code: 400, "the change is not valid JSON: \(error)", message: nil)
        }
        do {
            let change = try ChangeMessage.parse(message, clientID: session.clientID)
            let scope = try await services.scope(for: session.identity, bucket: session.bucket, writing: true)
            let event = try await services.buckets.apply(change, to: scope)
            services.connections.accepted(event, on: connection.info.id, userID: session.identity.userID)
        } catch let rejection as ChangeRejection {
            refuse(session, code: rejection.code, rejection.message, message: message)
        } catch let error as AccountError {
            refuse(session, code: error.status.rawValue, error.message, message: message)
        } catch {
            connection.logger.error("channel \(session.number): applying a change failed: \(error)")
            refuse(session, code: 500, "the server failed to apply the change; send it again", message: message)
        }
    }

    private func refuse(_ session: ChannelSession, code: Int, _ problem: String, message: JSONValue?) {
        let error = ChangeMessage.rejection(
            code: code, message: problem, key: message?["id"]?.stringValue ?? "", changeID: message?["ccid"]?.stringValue ?? "",
            clientID: session.clientID)
        send(SocketReply.channel(session.number, "c", json: [error]))
    }
}
