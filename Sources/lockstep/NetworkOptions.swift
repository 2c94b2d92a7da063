import ArgumentParser
import Foundation
import LockstepServer

/// The options of `lockstep serve` about who is calling and who may see what: trusted
/// proxies and the metrics endpoint. Each also reads an environment variable.
struct NetworkOptions: ParsableArguments {
    @Option(
        name: .customLong("trusted-proxy"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "Addresses or CIDR blocks of proxies whose X-Forwarded-For names the caller, e.g. 127.0.0.1 10.0.0.0/8 (env LOCKSTEP_TRUSTED_PROXIES, space or comma separated). None by default: the header is ignored.",
            valueName: "cidr"))
    var trustedProxy: [String] = []

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
