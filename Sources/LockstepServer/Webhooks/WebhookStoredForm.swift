/// How both stores write an endpoint's columns, and read them back: the same text for the
/// same endpoint, whichever store keeps it.
package enum WebhookStoredForm {
    /// The event types, comma-separated in order (`change,presence`).
    package static func types(_ filter: WebhookFilter) -> String {
        filter.typeNames.joined(separator: ",")
    }

    /// The bucket patterns, comma-separated as given; empty for every bucket.
    package static func buckets(_ filter: WebhookFilter) -> String {
        filter.buckets.map(\.text).joined(separator: ",")
    }

    /// The filter from its two columns.
    package static func filter(types: String, buckets: String) throws -> WebhookFilter {
        var set = Set<WebhookEventType>()
        for name in types.split(separator: ",") {
            guard let type = WebhookEventType(rawValue: String(name)) else { throw WebhookStoreError.unreadable("event type \(name)") }
            set.insert(type)
        }
        let patterns = try buckets.split(separator: ",").map { text in
            guard let pattern = BucketPattern(String(text)) else { throw WebhookStoreError.unreadable("bucket pattern \(text)") }
            return pattern
        }
        return WebhookFilter(types: set, buckets: patterns)
    }
}

extension ServerKey {
    /// A webhook secret sealed for its endpoint alone (see ``ServerKey``): the database keeps
    /// no secret a copy of it could sign with.
    package func sealWebhookSecret(_ secret: WebhookSecret, appID: String, endpointID: String) -> String {
        seal(secret.text, context: Self.webhookSecretContext(appID: appID, endpointID: endpointID))
    }

    package func openWebhookSecret(_ stored: String, appID: String, endpointID: String) throws -> WebhookSecret {
        let text = try open(stored, context: Self.webhookSecretContext(appID: appID, endpointID: endpointID))
        guard let secret = WebhookSecret(text: text) else { throw WebhookStoreError.unreadable("the secret of endpoint \(endpointID)") }
        return secret
    }

    private static func webhookSecretContext(appID: String, endpointID: String) -> String {
        "lockstep webhook secret\u{0}\(appID)\u{0}\(endpointID)"
    }
}

/// Why a store could not do what it was asked about webhooks.
public enum WebhookStoreError: Error, Equatable, CustomStringConvertible {
    /// There is no app with this id.
    case noSuchApp(String)
    /// A stored value is not one this version writes: a defect, or a database from elsewhere.
    case unreadable(String)

    public var description: String {
        switch self {
        case .noSuchApp(let id): "there is no app \(id)"
        case .unreadable(let what): "the store holds an unreadable \(what)"
        }
    }
}
