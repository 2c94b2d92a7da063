import HTTPTypes
import Hummingbird
import NIOCore

/// The console, a web page that uses the same authenticated API as every client: its static
/// files at `/console/`, and `/` sends a browser there. The files hold no secret, so they are
/// public; everything they show comes from the API with the admin token, which the page keeps
/// in `sessionStorage` and sends in `X-Simperium-Token`.
struct ConsoleRoutes<Context: RequestContext> {
    let files: ConsoleFiles

    func add(to router: Router<Context>) {
        router.get("/") { _, _ in Response.redirect(to: "/console/", type: .found) }
        // The router takes /console and /console/ as one path; the page's relative links need
        // the slash.
        router.get("/console/") { request, _ in
            guard request.uri.path.hasSuffix("/") else { return Response.redirect(to: "/console/", type: .permanent) }
            return try serve("index.html", request)
        }
        router.get("/console/**") { request, context in
            try serve(context.parameters.getCatchAll().joined(separator: "/"), request)
        }
    }

    private func serve(_ path: String, _ request: Request) throws -> Response {
        guard files.directory != nil else {
            throw HTTPError(.notFound, message: "this server was installed without its console files: put the folder "
                + "Lockstep_LockstepServer.resources that the build made beside the lockstep binary")
        }
        guard let file = files.files[path] else { throw HTTPError(.notFound, message: "the console has no file \(path)") }
        var headers = ConsoleSecurityHeaders.fields(host: request.head.authority)
        headers[.contentType] = file.contentType
        // The files change only with the binary; revalidating is cheap on loopback and a proxy.
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }
}
