import LockstepCore

extension ServerAPI {
    /// A history request on a bucket (`path` is the rest, already escaped): the JSON answer, a
    /// ``HistoryError`` for what the server refused, or ``LockstepClientError`` for the rest.
    func history(_ method: String, bucket: String, _ path: String, body: JSONValue? = nil) async throws -> JSONValue {
        let (status, _, bytes) = try await send(method, under: "\(escape(bucket))/\(path)", body: body, timeout: .seconds(120))
        guard status == 200 else {
            let refusal = SpaceRefusal(status: status, body: bytes)
            if let error = HistoryError(status: status, message: refusal.message) { throw error }
            throw LockstepClientError.protocolViolation(refusal.description)
        }
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw LockstepClientError.protocolViolation("an answer that is not JSON: \(error)")
        }
    }
}
