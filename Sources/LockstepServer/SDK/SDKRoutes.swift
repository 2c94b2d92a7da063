import HTTPTypes
import Hummingbird
import NIOCore

/// lockstep.js for pages that install nothing: `import { Lockstep } from "https://sync.example.com/sdk/lockstep.js"`.
///
/// - `GET /sdk/lockstep.js` redirects (302, revalidated every time) to the current version;
/// - `GET /sdk/lockstep-<version>.js` is the entry module, re-exporting `./<version>/lockstep.js`;
/// - `GET /sdk/<version>/<module>` is each module, byte for byte the files of
///   `Clients/JavaScript/src`, so the relative imports between them resolve below the version.
///
/// Versioned responses are immutable (a version names its bytes: see ``SDKFiles``): cached
/// for a year, with an ETag that answers `If-None-Match` with 304. The files are public and
/// hold no secret, so every response allows any origin to load them (module scripts are
/// fetched with CORS).
struct SDKRoutes<Context: RequestContext> {
    let files: SDKFiles

    func add(to router: Router<Context>) {
        router.get("/sdk/lockstep.js") { _, _ in
            try requireFiles()
            var headers = Self.common
            headers[.location] = "/sdk/lockstep-\(files.version).js"
            headers[.cacheControl] = "no-cache"
            return Response(status: .found, headers: headers)
        }
        router.get("/sdk/**") { request, context in
            try requireFiles()
            let path = context.parameters.getCatchAll()
            if path.count == 1, path[0] == "lockstep-\(files.version).js" {
                let bytes = files.entryModule
                return serve(bytes, etag: "\"\(files.version)\"", request)
            }
            guard path.count >= 2, path[0] == files.version else {
                throw HTTPError(.notFound, message: "this server serves lockstep.js \(files.version) only: load /sdk/lockstep.js")
            }
            let module = path.dropFirst().joined(separator: "/")
            guard let file = files.files[module] else { throw HTTPError(.notFound, message: "lockstep.js has no module \(module)") }
            return serve(file.bytes, etag: file.etag, request)
        }
    }

    private func requireFiles() throws {
        guard !files.version.isEmpty else {
            throw HTTPError(.notFound, message: "this server was installed without lockstep.js: put the folder "
                + "Lockstep_LockstepServer.resources that the build made beside the lockstep binary")
        }
    }

    private func serve(_ bytes: [UInt8], etag: String, _ request: Request) -> Response {
        var headers = Self.common
        headers[.eTag] = etag
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        headers[.contentType] = "text/javascript; charset=utf-8"
        if let condition = request.headers[.ifNoneMatch], condition.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private static var common: HTTPFields {
        [.accessControlAllowOrigin: "*", HTTPField.Name("X-Content-Type-Options")!: "nosniff"]
    }
}
