import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// `lockstep serve --static-dir`: a page and its modules served beside the API from the same
/// origin (the inventory's customer portal is served so). The API's answers come first, a
/// file is looked for only where the API has none (and at `/`, the site's `index.html`), and
/// nothing outside the folder is served.
@Suite("lockstep serve --static-dir", .serialized, .timeLimit(.minutes(2)))
struct StaticSiteTests {
    @Test func theFolderIsServedBesideTheAPIAndNothingOutsideIt() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-static-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let site = root.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site.appendingPathComponent("modules"), withIntermediateDirectories: true)
        try Data("<h1>portal</h1>".utf8).write(to: site.appendingPathComponent("index.html"))
        try Data("export const answer = 42;".utf8).write(to: site.appendingPathComponent("modules/answer.js"))
        try Data("a file that shadows an API path".utf8).write(to: site.appendingPathComponent("health"))
        try Data("outside the site".utf8).write(to: root.appendingPathComponent("secret.txt"))

        let data = root.appendingPathComponent("data").path
        let server = try ToolProcess.launch(
            "lockstep", name: "serve", arguments: ["serve", "--data-dir", data, "--port", "0", "--static-dir", site.path])
        defer { server.kill() }
        let listening = try #require(await server.next(startingWith: "Lockstep is listening on ", within: .seconds(30)), "\(server.transcript)")
        let base = String(listening.dropFirst("Lockstep is listening on ".count).prefix { $0 != "," })

        // The site's page is at its root (without --static-dir, / redirects to the console).
        let page = try await Self.get(base + "/")
        #expect(page.status == 200 && page.body == "<h1>portal</h1>")
        #expect(try await Self.get(base + "/index.html").body == "<h1>portal</h1>")
        let module = try await Self.get(base + "/modules/answer.js")
        #expect(module.status == 200 && module.body == "export const answer = 42;")
        #expect(module.contentType?.contains("javascript") == true, "a module script needs a JavaScript type: \(module.contentType ?? "none")")
        let health = try await Self.get(base + "/health")
        #expect(health.status == 200 && !health.body.contains("shadows"), "the API's /health comes first: \(health.body)")
        #expect(try await Self.get(base + "/missing.html").status == 404)
        for escape in ["/../secret.txt", "/%2e%2e/secret.txt", "/modules/..%2f..%2fsecret.txt"] {
            let answer = try await Self.get(base + escape)
            #expect(answer.status >= 400 && !answer.body.contains("outside"), "\(escape): \(answer.status) \(answer.body)")
        }
    }

    @Test func aFolderThatIsNotThereStopsTheServerSayingSo() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-static-none-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let result = try await LockstepTool.run(["serve", "--data-dir", data, "--port", "0", "--static-dir", "/nonexistent/portal"])
        #expect(result.status != 0)
        #expect(result.output.contains("--static-dir /nonexistent/portal is not a readable folder"), "\(result.output)")
    }

    static func get(_ url: String) async throws -> (status: Int, body: String, contentType: String?) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(decoding: body.readableBytesView, as: UTF8.self), response.headers.first(name: "Content-Type"))
    }
}
