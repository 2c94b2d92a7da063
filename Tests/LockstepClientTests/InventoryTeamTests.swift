import Foundation
import LockstepCore
import Testing

/// The `inventory` example's job as a space: the owner puts the team on it, the items reach the
/// team and nobody else, and a mover taken off the job stops receiving it.
@Suite("inventory example: a job's team")
struct InventoryTeamTests {
    @Test("two movers on a job see each other's items; one taken off the job gets nothing more and loses the job's data")
    func moverTakenOffTheJob() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (office, ana, ben, customer, stranger) = (0, 1, 2, 3, 4)
        let people = ["office", "ana", "ben", "customer", "stranger"].map { "\($0)@example.com" }
        let phones = try await InventoryPhones(server: server, people: people)
        defer { phones.removeStores() }

        // The office makes the job and puts its team on it.
        #expect(try await phones.run(office, ["job", "create"]).contains("job-1234: you own it"))
        _ = try await phones.run(office, ["job", "invite"], people[ana], people[ben], "--as", "writer")
        _ = try await phones.run(office, ["job", "invite"], people[customer], "--as", "reader")
        let members = try await phones.run(office, ["job", "members"])
        for (person, role) in [(office, "owner"), (ana, "writer"), (ben, "writer"), (customer, "reader")] {
            #expect(members.contains("\(people[person])\t\(role)"), "\(members)")
        }
        #expect(!members.contains(people[stranger]))
        #expect(try await phones.jobs(ben).contains("1234\twriter"))

        // Each mover's item reaches the other.
        let sofa = try await phones.run(ana, ["add"], "--name", "Sofa", "--category", "furniture").trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await phones.run(ana, ["sync"])
        let lamp = try await phones.run(ben, ["add"], "--name", "Lamp", "--category", "lighting").trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await phones.run(ben, ["sync"])
        _ = try await phones.run(ana, ["sync"])
        #expect(try await phones.items(ana).keys.sorted() == [sofa, lamp].sorted())
        #expect(try await phones.items(ben).keys.sorted() == [sofa, lamp].sorted())

        // The customer follows the job but cannot change it; the server keeps the items as they were.
        _ = try await phones.run(customer, ["sync"])
        #expect(try await phones.items(customer).keys.sorted() == [sofa, lamp].sorted())
        _ = try await phones.run(customer, ["change"], sofa, "--status", "damaged")
        let refused = try await phones.run(customer, ["sync"])
        #expect(refused.contains("not saved: editing \(sofa) (403"), "\(refused)")
        #expect(try await server.objects(InventoryTests.jobBucket, token: phones.tokens[ana])[sofa]?["status"] == "listed")

        // Another mover of the company is not on the job: nothing of it reaches their phone.
        let outsider = try await phones.attempt(stranger, ["sync"])
        #expect(outsider.status != 0 && outsider.output.contains("no longer receives job 1234"), "\(outsider.output)")
        #expect(try await phones.items(stranger).isEmpty)
        #expect(try await server.request("GET", "\(InventoryTests.jobBucket)/index", token: phones.tokens[stranger]).status == 404)

        // Ben is taken off the job; Ana lists one more item.
        #expect(try await phones.run(office, ["job", "remove"], people[ben]).contains("\(people[ben]) is off job 1234"))
        #expect(!(try await phones.run(office, ["job", "members"]).contains(people[ben])))
        let books = try await phones.run(ana, ["add"], "--name", "Books", "--category", "boxes").trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await phones.run(ana, ["sync"])

        // Ben's phone learns it on its next sync: it drops the job's data and says why.
        let dropped = try await phones.attempt(ben, ["sync"])
        #expect(dropped.status != 0, "\(dropped.output)")
        #expect(dropped.output.contains("you are not a member of space job-1234"), "\(dropped.output)")
        #expect(dropped.output.contains("no longer receives job 1234, and dropped its 2 item(s)"), "\(dropped.output)")
        #expect(try await phones.items(ben).isEmpty)
        // And stays without it: another sync brings nothing, the books included.
        #expect(try await phones.attempt(ben, ["sync"]).status != 0)
        #expect(try await phones.items(ben)[books] == nil)
        #expect(!(try await phones.jobs(ben).contains("1234")))
        #expect(try await server.request("GET", "\(InventoryTests.jobBucket)/index", token: phones.tokens[ben]).status == 404)

        // The team carries on.
        _ = try await phones.run(customer, ["sync"])
        #expect(try await phones.items(customer).keys.sorted() == [sofa, lamp, books].sorted())
        #expect(try await phones.items(ana).keys.sorted() == [sofa, lamp, books].sorted())
    }
}
