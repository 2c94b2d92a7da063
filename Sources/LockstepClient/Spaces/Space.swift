import LockstepCore

/// A named group of buckets shared by its members: a job's order shared by the movers on it, a
/// match shared by its two players. Get one with ``LockstepClient/space(_:)``.
///
/// ```swift
/// let job = try client.space("job-1234")
/// try await job.create()                              // you are its owner
/// try await job.invite("sam@example.com", as: .writer)
/// let items = try job.bucket("items")                 // a Bucket like any other
/// try await items.put("sofa", ["room": "lounge"])
/// for member in try await job.members { print(member.email, member.role) }
/// ```
///
/// A space's buckets work offline and sync like a user's own. Members are added by the email
/// they sign in with; an invitation to an address with no account yet waits for it.
///
/// When this user loses the space (an owner removes them, or deletes it), the client forgets
/// the space's buckets: each object goes with a ``BucketEvent`` of origin
/// ``BucketEvent/Origin/revoked(message:)`` and each bucket with a ``SpaceLoss`` on
/// ``LockstepClient/lostSpaces``, the buckets stop syncing (with the server and
/// with peers: their peer keys go too), and every change that the server had not acknowledged
/// stays in ``LockstepClient/outbox`` as rejected (code 403, with the server's reason), so
/// that no edit is lost without the app knowing. A write through
/// a ``Bucket`` of the space the app still holds throws ``SpaceError/notFound(space:)`` from
/// then on (opening the bucket again, once a member again, makes it writable again).
///
/// Calls that ask the server throw ``SpaceError`` for what it refused (a stranger gets
/// ``SpaceError/notFound(space:)``, exactly as for a space that does not exist), and
/// ``LockstepClientError`` for the rest (a refused token, an unreadable answer); what the
/// network threw when the server cannot be reached. See <doc:SharingWithSpaces>.
public struct Space: Sendable {
    /// The space's name: 1 to 64 of `a-z 0-9 _ -`, beginning with a letter or digit.
    public let name: String
    let client: LockstepClient

    init(name: String, client: LockstepClient) {
        self.name = name
        self.client = client
    }

    // MARK: Buckets

    /// The space's bucket `name`. It syncs from now on, and in later runs, as the bucket named
    /// `__<space>.<name>`, which is how every other client (Simperium's too) reaches it.
    ///
    /// ```swift
    /// let items = try client.space("job-1234").bucket("items")
    /// ```
    ///
    /// Needs no network: the server is asked nothing until the bucket syncs.
    public func bucket(_ name: String) throws -> Bucket {
        try client.bucket(SpaceName.bucketName(space: self.name, bucket: name))
    }

    /// The space's bucket `name`, whose objects are `Value`s.
    public func bucket<Value: Codable & Sendable>(_ name: String, of type: Value.Type) throws -> TypedBucket<Value> {
        TypedBucket(raw: try bucket(name))
    }

    // MARK: Sharing

    /// Makes the space on the server, with this user as its owner. Throws
    /// ``SpaceError/nameTaken(space:)`` when another space has the name.
    public func create() async throws {
        _ = try await request("POST", body: ["name": .string(name)], creating: true)
    }

    /// Gives `email` the role `role`: a new member (or an invitation, if nobody signed up with
    /// that address yet), or a member's role changed. Owners only.
    ///
    /// ```swift
    /// try await job.invite("sam@example.com", as: .writer)
    /// ```
    ///
    /// Throws ``SpaceError/forbidden(space:message:)`` for a caller who is not an owner,
    /// ``SpaceError/lastOwner(space:message:)`` when it would leave the space without an owner,
    /// and ``SpaceError/invalid(_:)`` for an address that is not an email address.
    public func invite(_ email: String, as role: SpaceRole) async throws {
        _ = try await request("POST", [name, "members"], body: ["email": .string(email), "role": .string(role.rawValue)])
    }

    /// Everyone in the space and their role, invitations waiting for an account included, as
    /// the server says now.
    ///
    /// ```swift
    /// for member in try await job.members { print(member.email, member.role) }
    /// ```
    public var members: [SpaceMember] {
        get async throws {
            let answer = try await request("GET", [name])
            return try (answer["members"]?.arrayValue ?? []).map { member in
                guard let email = member["email"]?.stringValue, let role = member["role"]?.stringValue.flatMap(SpaceRole.init(rawValue:))
                else { throw LockstepClientError.protocolViolation("a space member without email or role: \(member)") }
                return SpaceMember(email: email, role: role)
            }
        }
    }

    /// Takes `email` out of the space (or withdraws their invitation). Owners only; their open
    /// connections to the space end at once.
    ///
    /// Throws ``SpaceError/notMember(email:space:)`` for an address that is neither a member
    /// nor invited, and ``SpaceError/lastOwner(space:message:)`` for the last owner.
    public func remove(_ email: String) async throws {
        _ = try await request("DELETE", [name, "members", email], removing: email)
    }

    /// Leaves the space, and forgets its buckets on this device (see ``Space``). The last owner
    /// cannot leave: throws ``SpaceError/lastOwner(space:message:)``.
    public func leave() async throws {
        _ = try await request("POST", [name, "leave"])
        try await client.replica.forget(space: name, reason: "you left space \(name)")
    }

    /// Deletes the space and everything in it, for every member, and forgets its buckets on
    /// this device. Owners only.
    public func delete() async throws {
        _ = try await request("DELETE", [name])
        try await client.replica.forget(space: name, reason: "you deleted space \(name)")
    }

    private func request(
        _ method: String, _ path: [String] = [], body: JSONValue? = nil, removing email: String? = nil, creating: Bool = false
    ) async throws -> JSONValue {
        do {
            let api = client.sync.context.api
            return try await api.spaces(method, path, body: body)
        } catch let refusal as SpaceRefusal {
            if let error = SpaceError(refusal, space: name, removing: email, creating: creating) { throw error }
            throw LockstepClientError.protocolViolation("space \(name): \(refusal)")
        }
    }
}

extension LockstepClient {
    /// The space named `name`, to share, join the buckets of, or make with ``Space/create()``.
    /// Nothing is asked of the server yet. Throws ``SpaceError/invalid(_:)`` for a name that
    /// breaks the naming rule (1 to 64 of `a-z 0-9 _ -`, beginning with a letter or digit).
    public func space(_ name: String) throws -> Space {
        try SpaceName.validate(name)
        return Space(name: name, client: self)
    }

    /// The spaces this client's user is a member of, with their role in each, as the server
    /// says now (the admin token: every space of the app).
    ///
    /// ```swift
    /// for membership in try await client.spaces { print(membership.name, membership.role as Any) }
    /// ```
    public var spaces: [SpaceMembership] {
        get async throws {
            let answer: JSONValue
            do {
                answer = try await sync.context.api.spaces("GET")
            } catch let refusal as SpaceRefusal {
                throw LockstepClientError.protocolViolation("listing spaces: \(refusal)")
            }
            return try (answer.arrayValue ?? []).map { listed in
                guard let name = listed["name"]?.stringValue else {
                    throw LockstepClientError.protocolViolation("a listed space without a name: \(listed)")
                }
                return SpaceMembership(name: name, role: listed["role"]?.stringValue.flatMap(SpaceRole.init(rawValue:)))
            }
        }
    }
}
