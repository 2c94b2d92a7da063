import Foundation
import LockstepCore
@testable import LockstepServer
import Testing

/// Web pages of other origins, over real HTTP and real sockets: CORS for the listed origins
/// alone, their sockets opened and the others' refused, and the admin token kept from every
/// page not listed for it. Native clients (no `Origin`) and the server's own pages pass as
/// before.
@Suite("Origins: CORS, sockets and the admin token for pages of other sites")
struct CrossOriginTests {
    static let portal = "https://portal.example.com"
    static let office = "https://office.example.com"
    static let stranger = "https://evil.example"

    /// The server listing no origin answers as it always did, and says nothing to a page.
    @Test func withNoOriginListedAPageReadsNothingAndNativeClientsSeeNoChange() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let alice = try await server.createUser()
        #expect(try await alice.request("POST", "notes/i/n1", body: ["title": "milk"]).status == 200)

        let native = try await alice.request("GET", "notes/i/n1")
        #expect(native.status == 200 && native.header("X-Simperium-Version") == "1")
        #expect(native.header("Access-Control-Allow-Origin") == nil && native.header("Vary") == nil)
        let page = try await alice.request("GET", "notes/i/n1", headers: ["Origin": Self.portal])
        #expect(page.status == 200 && page.header("Access-Control-Allow-Origin") == nil)
        let preflight = try await server.request("OPTIONS", "/1/\(server.appID)/notes/i/n1", headers: Self.preflight(Self.portal, "GET"))
        #expect(preflight.status == 403 && preflight.header("Access-Control-Allow-Origin") == nil)
        #expect(preflight.errorMessage?.contains("--allowed-origin") == true, "\(preflight)")
        // tus's own OPTIONS, from a native client, is no preflight.
        let tus = try await alice.request("OPTIONS", "__blobs__", headers: ["Tus-Resumable": "1.0.0"])
        #expect(tus.status == 204 && tus.header("Tus-Version") == "1.0.0")
    }

    /// A listed origin's page: preflights answered here, every answer (a refusal too) readable,
    /// with the headers clients need exposed; another origin's page gets none of it.
    @Test func aListedOriginsPageReadsAnswersAndRefusalsAndNoOtherDoes() async throws {
        let origins = try OriginPolicy(allowing: [Self.portal])
        let server = try await TestServer.start { $0.origins = origins }
        defer { Task { await server.stop() } }
        let alice = try await server.createUser()
        #expect(try await alice.request("POST", "notes/i/n1", body: ["title": "milk"]).status == 200)

        let preflight = try await server.request("OPTIONS", "/1/\(server.appID)/notes/i/n1", headers: Self.preflight(Self.portal, "PUT"))
        #expect(preflight.status == 204, "\(preflight)")
        #expect(preflight.header("Access-Control-Allow-Origin") == Self.portal)
        #expect(preflight.header("Access-Control-Allow-Methods")?.contains("PUT") == true)
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("X-Simperium-Token") == true)
        #expect(preflight.header("Access-Control-Allow-Credentials") == nil, "tokens travel in headers: no credentials")

        let read = try await alice.request("GET", "notes/i/n1", headers: ["Origin": Self.portal])
        #expect(read.status == 200 && read.header("Access-Control-Allow-Origin") == Self.portal)
        #expect(read.header("Access-Control-Expose-Headers")?.contains("X-Simperium-Version") == true)
        #expect(read.header("Vary")?.contains("Origin") == true)
        let refused = try await server.request(
            "GET", "/1/\(server.appID)/notes/i/n1", headers: ["Origin": Self.portal, "X-Simperium-Token": "not-a-token"])
        #expect(refused.status == 401 && refused.header("Access-Control-Allow-Origin") == Self.portal, "\(refused)")
        #expect(refused.errorMessage != nil, "the page reads the server's message")
        let hello = Array("hello".utf8)
        let upload = try await alice.request(
            "POST", "__blobs__",
            headers: [
                "Origin": Self.portal, "Tus-Resumable": "1.0.0", "Upload-Length": "5",
                "Upload-Metadata": "sha256 \(Data(BlobHash(of: hello).hex.utf8).base64EncodedString())",
            ])
        #expect(upload.status == 201, "\(upload)")
        #expect(upload.header("Access-Control-Allow-Origin") == Self.portal)
        let exposed = upload.header("Access-Control-Expose-Headers") ?? ""
        #expect(exposed.contains("Location") && exposed.contains("Upload-Offset"), "\(exposed)")

        let other = try await alice.request("GET", "notes/i/n1", headers: ["Origin": Self.stranger])
        #expect(other.header("Access-Control-Allow-Origin") == nil)
        #expect(other.header("Vary")?.contains("Origin") == true, "a cache must not hand the portal's answer to another page")
        let otherPreflight = try await server.request("OPTIONS", "/1/\(server.appID)/notes/i/n1", headers: Self.preflight(Self.stranger, "GET"))
        #expect(otherPreflight.status == 403 && otherPreflight.header("Access-Control-Allow-Origin") == nil)
        // The server's own pages (the console) are no other site.
        let own = try await alice.request("GET", "notes/i/n1", headers: ["Origin": "http://127.0.0.1:\(server.port)"])
        #expect(own.status == 200 && own.header("Access-Control-Allow-Origin") == nil)
    }

    /// The admin token from a page: refused (403, saying what to list) unless its origin is
    /// listed for it; from native clients and the server's own console as ever.
    @Test func theAdminTokenIsRefusedFromEveryPageNotListedForIt() async throws {
        let origins = try OriginPolicy(allowing: [Self.portal], admin: [Self.office])
        let server = try await TestServer.start { $0.origins = origins }
        defer { Task { await server.stop() } }
        let admin = server.app.adminToken
        func stats(_ origin: String?) async throws -> TestResponse {
            var headers = ["X-Simperium-Token": admin]
            if let origin { headers["Origin"] = origin }
            return try await server.request("GET", "/1/\(server.appID)/__admin__/stats", headers: headers)
        }
        let fromPortal = try await stats(Self.portal)
        #expect(fromPortal.status == 403, "\(fromPortal)")
        #expect(fromPortal.errorMessage?.contains("--allowed-admin-origin") == true)
        #expect(fromPortal.header("Access-Control-Allow-Origin") == Self.portal, "the page reads why")
        #expect(try await stats(Self.stranger).status == 403)
        #expect(try await stats("null").status == 403)
        #expect(try await stats(Self.office).status == 200)
        #expect(try await stats(nil).status == 200)
        #expect(try await stats("http://127.0.0.1:\(server.port)").status == 200)
        // Any route: a write as the admin, from the portal.
        let write = try await server.request(
            "POST", "/1/\(server.appID)/notes/i/n1", headers: ["X-Simperium-Token": admin, "Origin": Self.portal], body: ["x": 1])
        #expect(write.status == 403)
        // A user's token from the portal is any page's own business.
        let alice = try await server.createUser()
        #expect(try await alice.request("POST", "notes/i/n1", headers: ["Origin": Self.portal], body: ["x": 1]).status == 200)
    }

    /// Sockets, which CORS does not guard: a page of an origin not listed is refused at the
    /// upgrade with 403 and why; a listed one's opens, native clients and the server's own pages
    /// as ever; the admin token on a listed page's socket only when listed for it.
    @Test func socketsOfPagesNotListedAreRefusedAndTheAdminTokenOnlyWhereListedForIt() async throws {
        let origins = try OriginPolicy(allowing: [Self.portal], admin: [Self.office])
        let server = try await TestServer.start { $0.origins = origins }
        defer { Task { await server.stop() } }
        func upgrade(_ origin: String?) throws -> RawConnection {
            let connection = try RawConnection.open(port: server.port)
            connection.send(
                "GET /sock/1/\(server.appID)/websocket HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + (origin.map { "Origin: \($0)\r\n" } ?? "") + "\r\n")
            return connection
        }
        let refused = try upgrade(Self.stranger)
        let answer = try await refused.receiveUntilClosed(within: .seconds(10))
        #expect(httpStatus(answer.text) == 403 && answer.closed, "\(answer.text)")
        #expect(answer.text.contains("--allowed-origin"))
        for origin in [nil, Self.portal, "http://127.0.0.1:\(server.port)"] {
            let opened = try upgrade(origin)
            let answer = try await opened.receive(until: "\r\n\r\n", within: .seconds(10))
            #expect(httpStatus(answer.text) == 101, "\(origin ?? "no origin"): \(answer.text)")
            opened.close()
        }

        let alice = try await server.createUser()
        let portalPage = try await SocketTestClient.connect(to: server, origin: Self.portal)
        defer { Task { await portalPage.close() } }
        #expect(try await portalPage.initialize(bucket: "notes", token: alice.token) == alice.username)
        let asAdmin = try await portalPage.initialize(channel: 1, bucket: "notes", token: server.app.adminToken)
        #expect(asAdmin.hasPrefix("{") && asAdmin.contains("403") && asAdmin.contains("--allowed-admin-origin"), "\(asAdmin)")
        let console = try await portalPage.initialize(channel: 2, bucket: AdminChannel.name, token: server.app.adminToken)
        #expect(console.hasPrefix("{") && console.contains("403"), "\(console)")

        let officePage = try await SocketTestClient.connect(to: server, origin: Self.office)
        defer { Task { await officePage.close() } }
        #expect(try await officePage.initialize(bucket: AdminChannel.name, token: server.app.adminToken, follow: false) == "admin")
    }

    static func preflight(_ origin: String, _ method: String) -> [String: String] {
        ["Origin": origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": "x-simperium-token"]
    }
}
