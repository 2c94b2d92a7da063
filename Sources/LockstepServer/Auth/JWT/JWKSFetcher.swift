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
struct JWKSFetcher: Sendable {
    /// A PEM file of certificate authorities trusted beside the system's.
    var certificateAuthorities: String?
    var timeoutSeconds: Double
    var maximumBytes: Int

    /// The key set at `url`, or a sentence saying why there is none.
    func fetch(_ url: URL) async throws(JWTKeyError) -> JWTKeySet {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let certificateAuthorities { tls.additionalTrustRoots = [.file(certificateAuthorities)] }
        let timeout = TimeAmount.nanoseconds(Int64(timeoutSeconds * 1e9))
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(
                tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: timeout, read: timeout)))
        let result: Result<JWTKeySet, JWTKeyError>
        do {
            result = .success(try await download(url, with: client, timeout: timeout))
        } catch let error as JWTKeyError {
            result = .failure(error)
        } catch {
            result = .failure(JWTKeyError("could not fetch the JWKS at \(url.absoluteString): \(Self.describe(error))"))
        }
        try? await client.shutdown()
        return try result.get()
    }

    private func download(_ url: URL, with client: HTTPClient, timeout: TimeAmount) async throws -> JWTKeySet {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/jwk-set+json, application/json")
        let response = try await client.execute(request, timeout: timeout)
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
