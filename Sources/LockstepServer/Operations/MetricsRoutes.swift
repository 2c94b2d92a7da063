import Crypto
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /metrics`: the server's metrics in Prometheus' text format, behind the bearer token
/// of ``MetricsAccess`` when there is one.
struct MetricsRoutes<Context: RequestContext> {
    let access: MetricsAccess

    func add(to router: Router<Context>) {
        router.get("/metrics") { request, _ in
            if let expected = access.bearerToken {
                guard let given = request.headers[.authorization], Self.matches(given, bearer: expected) else {
                    throw HTTPError(
                        .unauthorized, headers: [.wwwAuthenticate: "Bearer"],
                        message: "the metrics need Authorization: Bearer <the server's metrics token>")
                }
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: LockstepMetrics.registry.emitToBuffer())))
        }
    }

    /// Compares digests, so the time taken says nothing about how much of the token was right.
    static func matches(_ header: String, bearer expected: String) -> Bool {
        guard header.lowercased().hasPrefix("bearer ") else { return false }
        let given = String(header.dropFirst("bearer ".count))
        return SHA256.hash(data: Array(given.utf8)) == SHA256.hash(data: Array(expected.utf8))
    }
}
