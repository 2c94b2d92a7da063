import Crypto
import Foundation

/// Signs a request as the Standard Webhooks specification (standardwebhooks.com) says:
/// `webhook-signature: v1,<base64 of HMAC-SHA256(secret, "<webhook-id>.<webhook-timestamp>.<body>")>`,
/// one such signature per secret, separated by spaces. Receivers verify with any of the
/// specification's libraries, and accept a request when one signature matches a secret they
/// hold.
public enum WebhookSignature {
    /// The `webhook-signature` value of a request.
    /// - Parameter timestamp: seconds since the Unix epoch, as sent in `webhook-timestamp`.
    public static func header(id: String, timestamp: Int64, body: [UInt8], secrets: [WebhookSecret]) -> String {
        var signed = Array("\(id).\(timestamp).".utf8)
        signed.append(contentsOf: body)
        return secrets.map { secret in
            let code = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: secret.bytes))
            return "v1," + Data(code).base64EncodedString()
        }.joined(separator: " ")
    }
}
