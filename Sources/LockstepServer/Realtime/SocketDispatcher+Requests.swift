import LockstepCore
import NIOCore

extension SocketDispatcher {
    /// `N:i:<data>:<mark>:<offset>:<limit>`: one page of the bucket's index, answered
    /// `N:i:{"current","index":[{"id","v","d"?}],"mark"?}`, newest change first, each object as
    /// of the walk's `current` (see ``IndexResponse``).
    /// A walk that starts the channel makes it follow the feed from the walk's `current` once
    /// its last page is sent (see ``ChannelSession``).
    ///
    /// `data` is `1` for the objects' data; `mark` continues a walk, and every page of it
    /// reports the `current` of its first; `offset` is ignored; `limit` defaults to
    /// ``Limits/defaultIndexPage`` and is capped at ``Limits/maximumIndexPage``.
    func index(_ session: ChannelSession, _ payload: String?) async {
        let fields = (payload ?? "").split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
        func field(_ index: Int) -> Substring? { index < fields.count && !fields[index].isEmpty ? fields[index] : nil }
        let includeData = field(0).map { $0 != "0" && $0 != "false" } ?? false
        let limit = field(3).flatMap { Int($0) }.map { min(max($0, 1), limits.maximumIndexPage) } ?? limits.defaultIndexPage
        await connection.outbox.waitForRoom()
        do {
            let page = try await IndexResponse.page(
                of: session.scope, in: services.store, mark: field(1).map(String.init), limit: limit, includeData: includeData)
            session.reply(SocketReply.channel(session.number, "i", json: page.json))
            session.indexPageSent(walkCurrent: page.current, isLast: page.isLast)
        } catch let rejection as ChangeRejection {
            send(SocketReply.error(channel: session.number, code: rejection.code, message: rejection.message))
        } catch {
            serverError(session, "reading the index", error)
        }
    }

    /// `N:e:<key>.<version>`: one retained version of an object, answered
    /// `N:e:<key>.<version>\n{"data":{…}}`, or `N:e:<key>.<version>\n?` when there is none.
    /// Keys may contain dots, so the version is what follows the last one. A client that asked
    /// for Lockstep's extensions learns who made the version and when, beside its data
    /// (``VersionRecord/json(showingEmail:)``).
    func entity(_ session: ChannelSession, _ payload: String?) async {
        let request = payload ?? ""
        var reply = ByteBuffer(string: "\(session.number):e:\(request)\n")
        guard let dot = request.lastIndex(of: "."), let version = Int(request[request.index(after: dot)...]), version > 0 else {
            reply.writeString("?")
            return send(reply)
        }
        await connection.outbox.waitForRoom()
        let key = String(request[..<dot])
        do {
            if session.extensions {
                let record = try await services.store.versions(session.scope, key: key, from: version, through: version).first
                if let record, record.data != nil {
                    let fields = record.json(showingEmail: session.identity.isAdmin || session.access.space != nil)
                    reply.writeBytes(JSONValue.object(fields).jsonBytes)
                } else {
                    reply.writeString("?")
                }
            } else if let data = try await services.store.objectData(session.scope, key: key, version: version) {
                reply.writeBytes(JSONValue.object(["data": .object(data)]).jsonBytes)
            } else {
                reply.writeString("?")
            }
            session.reply(reply)
        } catch {
            serverError(session, "reading \(request)", error)
        }
    }

    /// `N:cv:<cv>`: every change after `cv`, oldest first, as `N:c:[…]` messages (`N:c:[]` when
    /// there are none), then the live changes; `N:cv:?` when the bucket has no such version.
    func changes(_ session: ChannelSession, _ payload: String?) {
        guard let cursor = payload.flatMap({ ChangeVersion($0) }) else {
            return send(SocketReply.channel(session.number, "cv", "?"))
        }
        session.sendChanges(after: cursor)
    }

    func serverError(_ session: ChannelSession, _ doing: String, _ error: any Error) {
        connection.logger.error("channel \(session.number): \(doing) failed: \(error)")
        send(SocketReply.error(channel: session.number, code: 500, message: "the server failed \(doing); try again"))
    }
}
