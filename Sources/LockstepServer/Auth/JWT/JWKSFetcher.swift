import AsyncHTTPClient
import Foundation
import LockstepCore
import NIOCore
import NIOSSL

/// Fetches an identity provider's JWKS over HTTPS.
///
/// The server's TLS trust is the system's certificate authorities, plus those of
/// `lockstep serve --jwks-ca-file` (a PEM bundle) for a provider whose certificate a private
/// CA signed. Redirects are not followed (a JWKS URL names its document), the answer is read
/// up to ``Limits/maximumJWKSBytes``, and the whole fetch is given
/// ``Limits/jwksFetchTimeoutSeconds``. Fetches are rare (see ``ProviderKeys``), so each
/// makes its own client and shuts it down.
///
/// As for webhooks, a server must not be a way into its own network: the host is resolved
/// here, its loopback, private and link-local addresses refused (``PublicAddresses``) unless
/// `serve --jwks-allow-private`, and the connection made to the address checked, not to the
/// name again (DNS rebinding); TLS still verifies the certificate against the name.
struct JWKSFetcher: Sendable {
    /// A PEM file of certificate authorities trusted beside the system's.
    var certificateAuthorities: String?
    var timeoutSeconds: Double
    var maximumBytes: Int
    /// Whether a JWKS may be fetched from a loopback, private or link-local address
    /// (``Limits/jwksAllowPrivateAddresses``).
    var allowPrivateAddresses: Bool

    /// The key set at `url`, or a sentence saying why there is none.
    func fetch(_ url: URL) async throws(JWTKeyError) -> JWTKeySet {
        let pins = try await checkedAddresses(url)
        let deadline = NIODeadline.now() + .nanoseconds(Int64(timeoutSeconds * 1e9))
        var failures: [String] = []
        for pin in pins {
            let result: Result<JWTKeySet, JWTKeyError>
            var tls = TLSConfiguration.makeClientConfiguration()
            if let certificateAuthorities { tls.additionalTrustRoots = [.file(certificateAuthorities)] }
            let remaining = deadline - .now()
            guard remaining > .zero else {
                failures.append("it took too long")
                break
            }
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: remaining, read: remaining))
            if let pin { configuration.dnsOverride = [pin.host: pin.ip] }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            do {
                result = .success(try await download(url, with: client, deadline: deadline))
            } catch let error as NotConnected {
                // Another address of the host may answer.
                failures.append(Self.describe(error.underlying))
                try? await client.shutdown()
                continue
            } catch let error as JWTKeyError {
                result = .failure(error)
            } catch {
                result = .failure(JWTKeyError("could not fetch the JWKS at \(url.absoluteString): \(Self.describe(error))"))
            }
            try? await client.shutdown()
            return try result.get()
        }
        throw JWTKeyError("could not fetch the JWKS at \(url.absoluteString): \(failures.joined(separator: "; "))")
    }

    /// The addresses the fetch may connect to, each pinning the URL's host to one address
    /// checked here (`[nil]` for a URL whose host is an address, checked and used as it is);
    /// throws when the host may not be reached.
    private func checkedAddresses(_ url: URL) async throws(JWTKeyError) -> [(host: String, ip: String)?] {
        guard let host = url.host, !host.isEmpty else { throw JWTKeyError("the JWKS URL \(url.absoluteString) names no host") }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses: [SocketAddress]
        do {
            addresses = try await PublicAddresses.reachableAddresses(
                of: bare, port: url.port ?? 443, allowingPrivate: allowPrivateAddresses, option: "--jwks-allow-private")
        } catch {
            throw JWTKeyError("could not fetch the JWKS at \(url.absoluteString): \(error)")
        }
        guard IPAddress(bare) == nil else { return [nil] }
        return addresses.compactMap { address in address.ipAddress.map { (host, $0) } }
    }

    /// A request that got no answer from the address it went to, for a reason other than TLS.
    private struct NotConnected: Error {
        var underlying: any Error
    }

    private func download(_ url: URL, with client: HTTPClient, deadline: NIODeadline) async throws -> JWTKeySet {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/jwk-set+json, application/json")
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: deadline)
        } catch let error where !(error is NIOSSLError || error is BoringSSLError) {
            throw NotConnected(underlying: error)
        }
        guard response.status == .ok else {
            throw JWTKeyError("the JWKS at \(url.absoluteString) answered \(response.status.code), not 200")
        }
        let body: ByteBuffer
        do {
            body = try await response.body.collect(upTo: maximumBytes)
        } catch is NIOTooManyBytesError {
            throw JWTKeyError("the JWKS at \(url.absoluteString) is longer than \(maximumBytes) bytes")
        }
        guard let document = try? JSONValue(parsing: body.readableBytesView) else {
            throw JWTKeyError("the JWKS at \(url.absoluteString) is not JSON")
        }
        return try JWTKeySet(jwks: document)
    }

    /// A fetch's failure in a few words: TLS and connection errors print long.
    private static func describe(_ error: any Error) -> String {
        switch error {
        case let error as NIOSSLError: "TLS failed (\(error))"
        case let error as BoringSSLError: "TLS failed (\(error)); is the provider's certificate authority trusted (--jwks-ca-file)?"
        case let error as HTTPClientError where error == .deadlineExceeded || error == .connectTimeout || error == .readTimeout: "it took too long"
        default: String("\(error)".prefix(200))
        }
    }
}

extension IdentityProviders {
    /// Throws unless `path` is a PEM file of at least one certificate (`--jwks-ca-file`).
    public static func checkCertificateAuthorities(_ path: String) throws {
        guard try !NIOSSLCertificate.fromPEMFile(path).isEmpty else { throw JWTKeyError("the file holds no PEM certificate") }
    }
}
