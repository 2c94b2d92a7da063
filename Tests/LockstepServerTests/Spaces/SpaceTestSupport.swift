import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Requests to the spaces API, `/1/{app}/__spaces__…`.
extension UserSession {
    func spaces(_ method: String, _ path: String = "", body: JSONValue? = nil) async throws -> TestResponse {
        try await request(method, "__spaces__" + path, body: body)
    }

    /// Makes a space, which must succeed.
    func createSpace(_ name: String) async throws {
        let made = try await spaces("POST", body: ["name": .string(name)])
        #expect(made.status == 201, "\(made)")
    }

    /// Gives `email` `role` in `space`, which must succeed.
    func invite(_ email: String, as role: String, to space: String) async throws {
        let invited = try await spaces("POST", "/\(space)/members", body: ["email": .string(email), "role": .string(role)])
        #expect(invited.status == 200, "\(invited)")
    }
}

extension TestServer {
    /// A request with the app's admin token.
    func admin(_ method: String, _ path: String, body: JSONValue? = nil) async throws -> TestResponse {
        try await request(method, "/1/\(appID)/\(path)", headers: ["X-Simperium-Token": app.adminToken], body: body)
    }

    /// The members of a space as its owner sees them: `email: role`.
    func members(of space: String, as owner: UserSession) async throws -> [String: String] {
        let response = try await owner.spaces("GET", "/\(space)")
        var members: [String: String] = [:]
        for member in response.json?["members"]?.arrayValue ?? [] {
            if let email = member["email"]?.stringValue { members[email] = member["role"]?.stringValue }
        }
        return members
    }
}
