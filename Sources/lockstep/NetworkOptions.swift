import ArgumentParser
import Foundation
import LockstepServer

/// The options of `lockstep serve` about who is calling and who may see what: trusted
/// proxies, the web pages of other sites that may call, and the metrics endpoint. Each also
/// reads an environment variable.
struct NetworkOptions: ParsableArguments {
    @Option(
        name: .customLong("trusted-proxy"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "Addresses or CIDR blocks of proxies whose X-Forwarded-For names the caller, e.g. 127.0.0.1 10.0.0.0/8 (env LOCKSTEP_TRUSTED_PROXIES, space or comma separated). None by default: the header is ignored.",
            valueName: "cidr"))
    var trustedProxy: [String] = []

    @Option(
        name: .customLong("allowed-origin"),
        help: ArgumentHelp(
            "An origin whose web pages may use the API (CORS) and the streaming socket, e.g. https://portal.example.com; repeatable (env LOCKSTEP_ALLOWED_ORIGINS, space or comma separated). None by default: only the server's own pages and native clients.",
            valueName: "origin"))
    var allowedOrigin: [String] = []

    @Option(
        name: .customLong("allowed-admin-origin"),
        help: ArgumentHelp(
            "An origin whose pages may also present the app's admin token (and use the API as --allowed-origin allows); repeatable (env LOCKSTEP_ALLOWED_ADMIN_ORIGINS). None by default: the admin token only from native clients and the server's own console.",
            valueName: "origin"))
    var allowedAdminOrigin: [String] = []

    @Option(
        name: .customLong("metrics-token"),
        help: "A bearer token that GET /metrics requires (env LOCKSTEP_METRICS_TOKEN). Without one, /metrics is open.")
    var metricsToken: String?

    @Option(
        name: .customLong("metrics-listen"),
        help: ArgumentHelp(
            "Serve /metrics only on this address of its own instead of the main one, e.g. 10.0.0.5:9090 (env LOCKSTEP_METRICS_LISTEN).",
            valueName: "host:port"))
    var metricsListen: String?

    @Option(
        name: .customLong("jwks-ca-file"),
        help: ArgumentHelp(
            "A PEM file of certificate authorities trusted, beside the system's, when apps' identity providers' JWKS are fetched over HTTPS (env LOCKSTEP_JWKS_CA_FILE): for a provider whose certificate a private CA signed.",
            valueName: "path"))
    var jwksCAFile: String?

    /// The certificate authorities of `--jwks-ca-file`, checked: a file that holds none is
    /// refused at startup, not at the first sign-in.
    func jwksCertificateAuthorities() throws -> String? {
        guard let path = jwksCAFile ?? ProcessInfo.processInfo.environment["LOCKSTEP_JWKS_CA_FILE"], !path.isEmpty else { return nil }
        do {
            try IdentityProviders.checkCertificateAuthorities(path)
        } catch {
            throw ValidationError("--jwks-ca-file \(path): \(error)")
        }
        return path
    }

    func trustedProxies() throws -> TrustedProxies {
        let text = trustedProxy.isEmpty ? ProcessInfo.processInfo.environment["LOCKSTEP_TRUSTED_PROXIES"] ?? "" : trustedProxy.joined(separator: " ")
        do {
            return try TrustedProxies(parsing: text)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The origins given on the command line, or else in the environment.
    func origins() throws -> OriginPolicy {
        let environment = ProcessInfo.processInfo.environment
        func listed(_ given: [String], _ variable: String) -> [String] {
            given.isEmpty ? (environment[variable] ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) : given
        }
        do {
            return try OriginPolicy(
                allowing: listed(allowedOrigin, "LOCKSTEP_ALLOWED_ORIGINS"), admin: listed(allowedAdminOrigin, "LOCKSTEP_ALLOWED_ADMIN_ORIGINS"))
        } catch {
            throw ValidationError("\(error)")
        }
    }

    var metricsBearerToken: String? {
        (metricsToken ?? ProcessInfo.processInfo.environment["LOCKSTEP_METRICS_TOKEN"]).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Where `/metrics` listens when it has a listener of its own.
    func metricsListener() throws -> (host: String, port: Int)? {
        guard let text = metricsListen ?? ProcessInfo.processInfo.environment["LOCKSTEP_METRICS_LISTEN"], !text.isEmpty else { return nil }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ValidationError("--metrics-listen takes host:port, such as 127.0.0.1:9090, not \(text)")
        }
        let host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }
}
