import ArgumentParser
import AsyncHTTPClient
import CommandLineSupport
import Foundation
import LockstepCore
import NIOCore
import NIOHTTP1

/// `lockstep buckets restore …`: what is done to a whole bucket on a running server.
struct BucketsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "buckets", abstract: "Work on whole buckets of a running server.", subcommands: [BucketsRestore.self])
}

/// `lockstep buckets restore --app A --bucket B [--owner U|--space S] --at TIME [--dry-run]`:
/// every object of a bucket put back as it was at a moment, as one group of changes the server
/// commits together (and sends every device), through the server's HTTP API.
struct BucketsRestore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put every object of a bucket back as it was at a moment.",
        discussion: """
            Objects made after the moment are removed; objects removed since stay removed (a removed \
            object never comes back), and are listed. Run it with --dry-run first: it says how many \
            objects would change, and changes nothing. Needs the app's admin token, or the token of \
            an owner of the space (--space).
            """)

    @Option(help: "The server's base URL.") var url = "http://127.0.0.1:8080"
    @Option(help: "The app id.") var app = "default"
    @Option(help: "The app's admin token, or a space owner's access token.") var token = ""
    @Option(help: "The bucket.") var bucket: String
    @Option(help: "The user whose bucket it is (their username or id; the admin token only).") var owner: String?
    @Option(help: "The space whose bucket it is.") var space: String?
    @Option(help: "The moment: 2026-12-07T14:04Z, 2026-12-07T14:04:00+01:00, or milliseconds since the Unix epoch (server time).")
    var at: String
    @Flag(help: "Only say what would change.") var dryRun = false

    func validate() throws {
        guard owner == nil || space == nil else { throw ValidationError("give --owner or --space, not both: a bucket has one owner") }
        guard Self.milliseconds(at) != nil else {
            throw ValidationError("--at \(at) is not a moment: give 2026-12-07T14:04Z, 2026-12-07T14:04:00+01:00 or milliseconds since the epoch")
        }
    }

    /// Milliseconds since the Unix epoch for a date and time with its zone, or a number of them.
    static func milliseconds(_ text: String) -> Int64? {
        if let number = Int64(text), number > 0 { return number }
        guard text.contains("T") else { return nil }
        return CalendarTime.milliseconds(parsing: text)
    }

    func run() async throws {
        let moment = Self.milliseconds(at)!
        var headers = HTTPHeaders([("X-Simperium-Token", token), ("Content-Type", "application/json")])
        if let owner { headers.add(name: "X-Simperium-User", value: try await userID(owner)) }
        let name = space.map { "__\($0).\(bucket)" } ?? bucket
        let answer = try await request(
            "POST", "\(escape(name))/restore?clientid=lockstep-cli", headers: headers, body: ["at": .integer(moment), "dryRun": .bool(dryRun)])
        let changes = answer["changes"]?.integerValue ?? 0
        let stayRemoved = answer["stayRemoved"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let whose = space.map { " of space \($0)" } ?? owner.map { " of \($0)" } ?? ""
        say("""
            \(dryRun ? "would put" : "put") bucket \(bucket)\(whose) back to \(TimeReading.iso8601(moment * 1_000_000)): \
            \(changes) object\(changes == 1 ? "" : "s") \(dryRun ? "would change" : "changed") \
            (\(answer["putBack"]?.integerValue ?? 0) put back, \(answer["removed"]?.integerValue ?? 0) made since and removed)
            """)
        if !stayRemoved.isEmpty {
            say("\(stayRemoved.count) removed since the moment stay removed: \(stayRemoved.joined(separator: ", "))")
        }
        for refused in answer["refused"]?.arrayValue ?? [] {
            say("refused: \(refused["id"]?.stringValue ?? "?"): \(refused["message"]?.stringValue ?? "")")
        }
    }

    /// The id of the user `owner` names: a username the admin API finds, or else an id as it is.
    private func userID(_ owner: String) async throws -> String {
        let page = try await request(
            "GET", "__admin__/users?prefix=\(escape(owner))&limit=10", headers: HTTPHeaders([("X-Simperium-Token", token)]), body: nil)
        let match = page["users"]?.arrayValue?.first { $0["username"]?.stringValue?.lowercased() == owner.lowercased() }
        return match?["id"]?.stringValue ?? owner
    }

    private func request(_ method: String, _ path: String, headers: HTTPHeaders, body: JSONValue?) async throws -> JSONValue {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        var request = HTTPClientRequest(url: "\(base)/1/\(escape(app))/\(path)")
        request.method = .RAW(value: method)
        request.headers = headers
        if let body { request.body = .bytes(ByteBuffer(bytes: body.jsonBytes)) }
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
        } catch {
            throw CommandError("cannot reach \(base): \(error)")
        }
        let bytes = Array(try await response.body.collect(upTo: 64 * 1024 * 1024).readableBytesView)
        let json = try? JSONValue(parsing: bytes)
        guard response.status == .ok, let json else {
            let message = json?["error"]?["message"]?.stringValue ?? String(decoding: bytes, as: UTF8.self)
            throw CommandError("the server refused (\(response.status.code)): \(message)")
        }
        return json
    }

    private func escape(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? text
    }
}
