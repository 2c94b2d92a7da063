/// A generated history of one space shared by three people, for ``MembershipHistoryTests``:
/// Ann owns `job-1`; Bob and Cat are invited, made readers or writers, removed, leave, write,
/// read and reconnect to either node, in a random order drawn from a seed.
struct MembershipHistory: CustomStringConvertible {
    enum Person: String, CaseIterable, Sendable {
        case ann, bob, cat
        var email: String { "\(rawValue)@example.com" }
    }

    enum Role: String, Sendable {
        case owner, writer, reader
        var canWrite: Bool { self != .reader }
    }

    enum Step: CustomStringConvertible, Sendable {
        /// Ann gives `person` `role`: an invitation, or a changed role.
        case invite(Person, Role)
        /// Ann removes `person`.
        case remove(Person)
        /// `person` leaves.
        case leave(Person)
        /// `person` writes a new object, named after the step, through `node`.
        case write(Person, node: Int)
        /// `person` reads the object of an earlier write through `node`.
        case read(Person, node: Int, writtenAt: Int)
        /// `person`'s socket closes and opens again on `node`.
        case reconnect(Person, node: Int)

        var description: String {
            switch self {
            case .invite(let person, let role): "ann invites \(person) as \(role)"
            case .remove(let person): "ann removes \(person)"
            case .leave(let person): "\(person) leaves"
            case .write(let person, let node): "\(person) writes through node \(node + 1)"
            case .read(let person, let node, let step): "\(person) reads the object of step \(step) through node \(node + 1)"
            case .reconnect(let person, let node): "\(person) reconnects to node \(node + 1)"
            }
        }
    }

    let seed: UInt64
    let steps: [Step]

    var description: String {
        "seed \(seed):\n" + steps.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
    }

    /// Steps drawn from `seed`: every membership change the API allows from the state reached
    /// (removing and leaving only for members), writes and reads by anyone, member or not.
    static func generate(seed: UInt64, count: Int, nodes: Int) -> MembershipHistory {
        var random = SeededGenerator(seed: seed)
        var roles: [Person: Role] = [.ann: .owner]
        var steps: [Step] = []
        var writes: [Int] = []
        let guests: [Person] = [.bob, .cat]
        while steps.count < count {
            let person = guests.randomElement(using: &random)!
            let node = Int.random(in: 0..<nodes, using: &random)
            let step: Step
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<18: step = .invite(person, Bool.random(using: &random) ? .reader : .writer)
            case 18..<28 where roles[person] != nil: step = .remove(person)
            case 28..<34 where roles[person] != nil: step = .leave(person)
            case 34..<70: step = .write(Person.allCases.randomElement(using: &random)!, node: node)
            case 70..<85 where !writes.isEmpty:
                step = .read(Person.allCases.randomElement(using: &random)!, node: node, writtenAt: writes.randomElement(using: &random)!)
            case 85..<100: step = .reconnect(Person.allCases.randomElement(using: &random)!, node: node)
            default: continue
            }
            switch step {
            case .invite(let person, let role): roles[person] = role
            case .remove(let person), .leave(let person): roles[person] = nil
            case .write: writes.append(steps.count)
            case .read, .reconnect: break
            }
            steps.append(step)
        }
        return MembershipHistory(seed: seed, steps: steps)
    }
}
