import Foundation
import LockstepCore
@testable import LockstepServer
import PropertyBased
import Testing

/// The pieces of a webhook request on their own: the Standard Webhooks signature against the
/// specification's published example, secrets, bucket patterns, the addresses refused, the
/// body's timestamps, and the retry schedule.
@Suite("Webhooks: formats and rules")
struct WebhookFormatTests {
    @Test func signsAsTheSpecificationsExample() throws {
        // The example of standardwebhooks.com (and of its libraries' tests).
        let secret = try #require(WebhookSecret(text: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let header = WebhookSignature.header(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8), secrets: [secret])
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        let two = WebhookSignature.header(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8), secrets: [.random(), secret])
        #expect(two.split(separator: " ").count == 2 && two.hasSuffix(" " + header))
    }

    @Test func secretsReadBackAsWritten() {
        let secret = WebhookSecret.random()
        #expect(secret.bytes.count == 24 && secret.text.hasPrefix("whsec_"))
        #expect(WebhookSecret(text: secret.text) == secret)
        #expect(WebhookSecret(text: "whsec_") == nil && WebhookSecret(text: "sk_abc") == nil && WebhookSecret(text: "whsec_!!") == nil)
    }

    @Test(arguments: [
        ("items", "items", true), ("items", "items2", false), ("job-*", "job-1", true), ("job-*", "job-", true), ("job-*", "jobs", false),
        ("__*.items", "__job-1.items", true), ("__*.items", "items", false), ("__*.items", "__job-1.notes", false), ("*", "anything", true),
        ("a*a", "a", false), ("a*a", "aa", true), ("*x*y*", "axbyc", true), ("*x*y*", "aybxc", false), ("%_@.-", "%_@.-", true),
    ])
    func bucketPatternsMatchAsGlobs(pattern: String, name: String, matches: Bool) throws {
        #expect(try #require(BucketPattern(pattern)).matches(name) == matches)
    }

    @Test func bucketPatternsAreBucketNamesWithStars() {
        for bad in ["", "has space", "semi;colon", String(repeating: "a", count: 257), "ünïcode"] { #expect(BucketPattern(bad) == nil, "\(bad)") }
    }

    /// Patterns over a small alphabet, so that names often match, against a regular expression
    /// made from the same pattern.
    @Test func patternsMatchWhatTheirRegularExpressionMatches() async {
        let patterns = Gen<Character?>.element(of: Array("ab*") as [Character]).map { $0! }.string(of: 1...6)
        let names = Gen<Character?>.element(of: Array("ab") as [Character]).map { $0! }.string(of: 1...8)
        await propertyCheck(input: patterns, names) { pattern, name in
            let expression = try! NSRegularExpression(pattern: "^" + pattern.replacingOccurrences(of: "*", with: ".*") + "$")
            let expected = expression.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
            #expect(BucketPattern(pattern)?.matches(name) == expected, "\(pattern) against \(name)")
        }
    }

    @Test(arguments: [
        ("8.8.8.8", nil), ("1.1.1.1", nil), ("2606:4700:4700::1111", nil), ("127.0.0.1", "loopback"), ("127.8.9.1", "loopback"),
        ("10.0.0.1", "private"), ("172.16.0.1", "private"), ("172.31.255.255", "private"), ("172.32.0.1", nil), ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"), ("100.64.0.1", "shared"), ("0.0.0.0", "\"this network\""), ("224.0.0.1", "multicast"),
        ("255.255.255.255", "reserved"), ("::1", "loopback"), ("::", "unspecified"), ("fe80::1", "link-local"), ("fd12::1", "private"),
        ("::ffff:10.0.0.1", "private"), ("64:ff9b::a00:1", "private"), ("2002:a00:1::", "private"), ("::127.0.0.1", "loopback"),
        ("ff02::1", "multicast"),
    ] as [(String, String?)])
    func refusesAddressesThatAreNotPublic(address: String, kind: String?) throws {
        let refusal = PublicAddresses.refusal(try #require(IPAddress(address)))
        if let kind { #expect(refusal?.contains(kind) == true, "\(address): \(refusal ?? "allowed")") } else { #expect(refusal == nil) }
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"), (1_796_130_902_371_000_000, "2026-12-01T13:15:02.371Z"),
        (-1_000_000, "1969-12-31T23:59:59.999Z"), (951_782_400_000_000_000, "2000-02-29T00:00:00.000Z"),
    ])
    func writesTimestampsInUTC(nanoseconds: Int64, text: String) {
        var bytes: [UInt8] = []
        WebhookBody.appendISO8601(nanoseconds, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == text)
    }

    @Test func retriesDoubleUpToTheLongestWaitLessUpToHalf() {
        var limits = WebhookLimits()
        limits.retryBaseSeconds = 5
        limits.retryMaximumSeconds = 3600
        let policy = WebhookRetryPolicy(limits: limits)
        #expect(policy.delaySeconds(afterFailures: 1, random: 0) == 5)
        #expect(policy.delaySeconds(afterFailures: 1, random: 1) == 2.5)
        #expect(policy.delaySeconds(afterFailures: 4, random: 0) == 40)
        #expect(policy.delaySeconds(afterFailures: 30, random: 0) == 3600)
        #expect(policy.delaySeconds(afterFailures: 10_000, random: 0.5) == 2700)
        #expect(!policy.givesUp(firstAttempt: 0, now: 259_199_000_000_000))
        #expect(policy.givesUp(firstAttempt: 0, now: 259_200_000_000_000))
    }

    @Test func urlsAreCheckedAndTheirRequestTargetsKept() throws {
        let url = try WebhookURL("https://Office.Example.com:8443/hooks/lockstep?team=7")
        #expect(url.isSecure && url.host == "office.example.com" && url.port == 8443 && url.target == "/hooks/lockstep?team=7")
        #expect(url.hostHeader == "office.example.com:8443")
        #expect(try WebhookURL("http://[::1]:9/").host == "::1")
        #expect(try WebhookURL("http://[::1]:9/").hostHeader == "[::1]:9")
        #expect(try WebhookURL("http://example.com").target == "/")
        for bad in ["example.com/hook", "ftp://example.com/", "https://u:p@example.com/", "https://example.com/#x", "https:///path"] {
            #expect(throws: WebhookURLError.self, "\(bad)") { try WebhookURL(bad) }
        }
    }
}
