import LockstepServer
import Testing

/// The naming rule by which any client reaches a space's bucket, `__<space>.<bucket>`: it reads
/// one way only, and no name of a user's own bucket is ever read as a space's.
@Suite("Spaces: bucket names")
struct SpaceBucketNameTests {
    @Test func aSpaceBucketNameReadsOneWay() {
        #expect(SpaceBucketName("__job-1234.items") == SpaceBucketName(space: "job-1234", bucket: "items"))
        // The first dot ends the space's name: the bucket part keeps the rest.
        #expect(SpaceBucketName("__match_7.moves.v2") == SpaceBucketName(space: "match_7", bucket: "moves.v2"))
        #expect(SpaceBucketName(space: "job-1234", bucket: "items").description == "__job-1234.items")
    }

    @Test(arguments: [
        "items", "_items", "job-1234.items", "__options__", "__", "__.items", "__job-1234.", "__job-1234", "__Job.items",
        "__-job.items", "___job.items", "__job.__items", "__job.items!", "__jo b.items", "__job@x.items",
        "__" + String(repeating: "a", count: 65) + ".items", "__job." + String(repeating: "b", count: 252),
    ])
    func otherNamesAreNotSpaceBuckets(_ name: String) {
        #expect(SpaceBucketName(name) == nil)
    }

    @Test func noUsersBucketIsASpacesAndNoSpacesBucketIsAUsers() {
        let alphabet = Array("ab_.-%@Z9")
        // Every name of up to 5 characters over an alphabet with each kind of character.
        var names = [""]
        for _ in 0..<5 { names = names + names.flatMap { name in alphabet.map { name + String($0) } } }
        for name in Set(names) where !name.isEmpty {
            let user = SpaceBucketName.isValidBucket(name)
            let space = SpaceBucketName(name) != nil
            #expect(!(user && space), "\(name) is both a user's bucket and a space's")
            if space { #expect(name.hasPrefix("__")) }
        }
        for name in ["__a.b", "__a.b.c", "__9-_.x%@"] { #expect(SpaceBucketName(name) != nil && !SpaceBucketName.isValidBucket(name)) }
    }

    @Test func spaceNames() {
        for name in ["a", "job-1234", "0_x", String(repeating: "z", count: 64)] { #expect(SpaceName.isValid(name), "\(name)") }
        for name in ["", "-a", "_a", "A", "a.b", "a b", "é", String(repeating: "z", count: 65)] { #expect(!SpaceName.isValid(name), "\(name)") }
    }
}
