import Hummingbird
import Logging

/// `lockstep serve --static-dir`: a folder served as a site beside the API, from the server's
/// own origin. A file is looked for only where the API answered 404, so the API's paths always
/// win (Hummingbird's `FileMiddleware` does that, and refuses paths with `..`); the one
/// exception is `/`, which redirects to the console unless the folder has an `index.html`: a
/// site's page is at its root.
struct StaticSiteMiddleware: RouterMiddleware {
    typealias Context = LockstepRequestContext

    private let files: FileMiddleware<Context, LocalFileSystem>

    init(folder: String, logger: Logger) {
        files = FileMiddleware(folder, searchForIndexHtml: true, logger: logger)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/", request.method == .get || request.method == .head,
            let page = try? await files.handle(request, context: context, next: { _, _ in throw HTTPError(.notFound) })
        {
            return page
        }
        return try await files.handle(request, context: context, next: next)
    }
}
