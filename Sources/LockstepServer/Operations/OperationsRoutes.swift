import Hummingbird
import LockstepCore
import NIOCore

/// `GET /health`, `GET /metrics` (``MetricsRoutes``, unless it has a listener of its own) and
/// the clock exchange `GET /time`.
struct OperationsRoutes<Context: RequestContext> {
    let services: LockstepServices

    func add(to router: Router<Context>) {
        router.get("/health") { _, _ in
            _ = try await services.store.apps()
            return Response.json(["status": "ok"])
        }
        if services.metrics.onMainListener { MetricsRoutes(access: services.metrics).add(to: router) }
        // One clock exchange: the client's send time echoed, the server's receive and send
        // times in nanoseconds since the Unix epoch. The send time is stamped last.
        router.get("/time") { request, _ in
            let received = services.clock.now()
            let echoed = request.query("t1")
            guard let t1 = echoed.map({ Int64($0) }) ?? 0 else { throw HTTPError(.badRequest, message: "t1 must be an integer") }
            let sent = services.clock.now()
            return Response.json(["t1": .integer(t1), "t2": .integer(received), "t3": .integer(sent)])
        }
    }
}
