import ArgumentParser
import AsyncHTTPClient
import CommandLineSupport
import Foundation
import LockstepCore
import NIOCore
import NIOHTTP1

/// `lockstep webhooks --url URL --app A --token ADMIN <subcommand>`: an app's webhook endpoints
/// through the admin API (`/1/{app}/__admin__/webhooks`). Each invocation does one thing; a
/// refusal is printed as the server gave it, with a non-zero exit.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Add, list, show, remove, test and replay an app's webhook endpoints.",
        discussion: """
            Requests are signed as Standard Webhooks (standardwebhooks.com) are: verify them with the `whsec_` secret that \
            `add` prints, using any of its libraries. Needs the app's admin token.
            """,
        subcommands: [
            WebhooksAdd.self, WebhooksList.self, WebhooksShow.self, WebhooksRemove.self, WebhooksTest.self, WebhooksRotate.self,
            WebhooksDeliveries.self, WebhooksReplay.self,
        ])

    @OptionGroup var options: WebhooksOptions
}

/// Which server and app, and the admin token.
struct WebhooksOptions: ParsableArguments {
    @Option(help: "The server's base URL.")
    var url: String = "http://127.0.0.1:8080"

    @Option(help: "The app id.")
    var app: String = "default"

    @Option(help: "The app's admin token.")
    var token: String = ""

    /// Sends a request to the app's webhooks API (`path` after `webhooks`) and answers the JSON
    /// it returns; a refusal becomes a ``CommandError`` with the server's message.
    func request(_ method: HTTPMethod, _ path: String = "", body: JSONValue? = nil) async throws -> JSONValue {
        let encodedApp = app.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? app
        var request = HTTPClientRequest(url: url.trimmingSuffix("/") + "/1/\(encodedApp)/__admin__/webhooks" + path)
        request.method = method
        request.headers.add(name: "X-Simperium-Token", value: token)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body.jsonBytes))
        }
        let response: HTTPClientResponse
        let bytes: ByteBuffer
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            bytes = try await response.body.collect(upTo: 16 * 1024 * 1024)
        } catch {
            throw CommandError("could not reach \(url): \(error)")
        }
        let json = bytes.readableBytes == 0 ? JSONValue.null : (try? JSONValue(parsing: Array(bytes.readableBytesView))) ?? .null
        guard (200..<300).contains(response.status.code) else {
            throw CommandError("\(response.status.code): \(json["error"]?["message"]?.stringValue ?? String(buffer: bytes))")
        }
        return json
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

/// How the commands print an endpoint and a delivery.
enum WebhookText {
    static func endpoint(_ json: JSONValue) -> [String] {
        var lines = [
            "\(json["id"]?.stringValue ?? "?")  \(json["url"]?.stringValue ?? "")",
            "  events:  \((json["events"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", "))",
        ]
        let buckets = (json["buckets"]?.arrayValue ?? []).compactMap(\.stringValue)
        lines.append("  buckets: \(buckets.isEmpty ? "all" : buckets.joined(separator: ", "))")
        if let description = json["description"]?.stringValue, !description.isEmpty { lines.append("  description: \(description)") }
        if json["enabled"]?.boolValue == false {
            lines.append("  DISABLED at \(time(json["disabledAt"])): \(json["disabledReason"]?.stringValue ?? "")")
            lines.append("  (lockstep webhooks replay \(json["id"]?.stringValue ?? "ID") enables it and sends its failed delivery again)")
        } else {
            lines.append("  enabled")
        }
        if let pending = json["pending"] {
            let events = pending["events"]?.integerValue ?? 0
            lines.append("  pending: \(events) events" + (pending["oldestAt"].map { ", the oldest from \(time($0))" } ?? ""))
        }
        if let until = json["previousSecretUntil"] { lines.append("  the previous secret signs too until \(time(until))") }
        return lines
    }

    static func delivery(_ json: JSONValue) -> String {
        let id = json["id"]?.stringValue ?? "?"
        let state = json["state"]?.stringValue ?? "?"
        let events = json["events"]?.integerValue ?? 0
        let range = "\(json["first"]?.stringValue ?? "")…\(json["last"]?.stringValue ?? "")"
        var line = "\(id)  \(state)  \(events) events (\(range))  \(json["attempts"]?.integerValue ?? 0) attempts"
        if let attempt = json["lastAttempt"] {
            line += "  last: \(time(attempt["at"])) "
            line += attempt["error"]?.stringValue ?? "\(attempt["status"]?.integerValue ?? 0)"
        }
        if json["state"]?.stringValue == "pending", let next = json["nextAttemptAt"] { line += "  next: \(time(next))" }
        return line
    }

    /// A time in milliseconds since the Unix epoch, as UTC.
    static func time(_ value: JSONValue?) -> String {
        guard let milliseconds = value?.integerValue else { return "?" }
        return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}

struct WebhooksAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add an endpoint; prints its id and its signing secret (shown this once).")

    @ParentCommand var parent: WebhooksCommand
    @Argument(help: "The endpoint's URL (http:// or https://).") var endpoint: String
    @Option(help: "The events it wants, comma-separated: change, space.member, presence, blob, purchase.")
    var events: String = "change"
    @Option(name: .customLong("bucket"), help: "Only events of this bucket (a name, * for any run of characters); repeat for more.")
    var buckets: [String] = []
    @Option(help: "What the endpoint is for.") var description: String?

    func run() async throws {
        var body: JSONObject = [
            "url": .string(endpoint), "events": .array(events.split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) }),
            "buckets": .array(buckets.map(JSONValue.string)),
        ]
        if let description { body["description"] = .string(description) }
        let added = try await parent.options.request(.POST, body: .object(body))
        for line in WebhookText.endpoint(added) { say(line) }
        say("  secret:  \(added["secret"]?.stringValue ?? "?")")
    }
}

struct WebhooksList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Print the app's endpoints.")

    @ParentCommand var parent: WebhooksCommand

    func run() async throws {
        let listed = try await parent.options.request(.GET)
        let endpoints = listed["endpoints"]?.arrayValue ?? []
        if endpoints.isEmpty { say("no webhook endpoints") }
        for endpoint in endpoints {
            say("\(endpoint["id"]?.stringValue ?? "?")\t\(endpoint["enabled"]?.boolValue == false ? "disabled" : "enabled")\t"
                + "\((endpoint["events"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ","))\t\(endpoint["url"]?.stringValue ?? "")")
        }
    }
}

struct WebhooksShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Print an endpoint, with what it is owed and has not had.")

    @ParentCommand var parent: WebhooksCommand
    @Argument(help: "The endpoint's id.") var id: String

    func run() async throws {
        for line in WebhookText.endpoint(try await parent.options.request(.GET, "/\(id)")) { say(line) }
    }
}

struct WebhooksRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove an endpoint and its deliveries.")

    @ParentCommand var parent: WebhooksCommand
    @Argument(help: "The endpoint's id.") var id: String

    func run() async throws {
        _ = try await parent.options.request(.DELETE, "/\(id)")
        say("removed \(id)")
    }
}

struct WebhooksTest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test", abstract: "Send the endpoint a signed webhook.test event now, and print what it answered.")

    @ParentCommand var parent: WebhooksCommand
    @Argument(help: "The endpoint's id.") var id: String

    func run() async throws {
        let result = try await parent.options.request(.POST, "/\(id)/test")
        let milliseconds = String(format: "%.1f", result["milliseconds"]?.doubleValue ?? 0)
        if let error = result["error"]?.stringValue { throw CommandError("no answer after \(milliseconds) ms: \(error)") }
        let status = result["status"]?.integerValue ?? 0
        say("\(status) in \(milliseconds) ms")
        if let body = result["response"]?.stringValue, !body.isEmpty { say(body) }
        guard (200..<300).contains(status) else { throw CommandError("the endpoint answered \(status), not 2xx: it would be retried") }
    }
}

struct WebhooksRotate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Give an endpoint a new signing secret; the old one signs too for the overlap.",
        discussion: "During the overlap every request carries two signatures, one by each secret: move the receiver to the new one within it.")

    @ParentCommand var parent: WebhooksCommand
    @Argument(help: "The endpoint's id.") var id: String
    @Option(name: .customLong("overlap-seconds"), help: "How long the old secret goes on signing (default a day).")
    var overlapSeconds: Double = 86_400

    func run() async throws {
        let rotated = try await parent.options.request(.POST, "/\(id)/rotate", body: .object(["overlapSeconds": .number(overlapSeconds)]))
        say("secret:  \(rotated["secret"]?.stringValue ?? "?")")
        if let until = rotated["previousSecretUntil"] { say("the previous secret signs too until \(WebhookText.time(until))") }
    }
}

struct WebhooksDeliveries: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliveries", abstract: "Print an endpoint's deliveries, newest first; with a delivery's id, that one and its body.")

    @ParentCommand var parent: WebhooksCommand
    @Argument(help: "The endpoint's id.") var id: String
    @Argument(help: "A delivery's id (msg_…): print it with its body and its last response.") var delivery: String?
    @Option(help: "How many deliveries.") var limit: Int = 20

    func run() async throws {
        if let delivery {
            let shown = try await parent.options.request(.GET, "/\(id)/deliveries/\(delivery)")
            say(WebhookText.delivery(shown))
            if let response = shown["lastAttempt"]?["response"]?.stringValue, !response.isEmpty { say("response: \(response)") }
            say(shown["body"]?.stringValue ?? "")
            return
        }
        let listed = try await parent.options.request(.GET, "/\(id)/deliveries?limit=\(limit)")
        let deliveries = listed["deliveries"]?.arrayValue ?? []
        if deliveries.isEmpty { say("no deliveries") }
        for delivery in deliveries { say(WebhookText.delivery(delivery)) }
    }
}

struct WebhooksReplay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Enable an endpoint again and send a delivery again, with its own webhook-id.",
        discussion: "Without a delivery, the one the endpoint was disabled with (if any): then everything after it follows, in order.")

    @ParentCommand var parent: WebhooksCommand
    @Argument(help: "The endpoint's id.") var id: String
    @Argument(help: "The delivery to send again (msg_…).") var delivery: String?

    func run() async throws {
        let body: JSONValue = delivery.map { ["delivery": .string($0)] } ?? [:]
        let replayed = try await parent.options.request(.POST, "/\(id)/replay", body: body)
        if let sent = replayed["delivery"] { say("sending again: \(WebhookText.delivery(sent))") }
        say("\(id) is enabled")
    }
}
