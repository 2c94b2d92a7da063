import ArgumentParser
import Testing
@testable import lockstep

/// `lockstep serve`'s limits, as its command line gives them.
@Suite("Limit options")
struct LimitOptionsTests {
    @Test func theRemovedMemberStampsKeptAreAnOptionWithADefault() throws {
        #expect(try LimitOptions.parse([]).resolved().removedMemberStampsPerObject == 1000)
        #expect(try LimitOptions.parse(["--removed-member-stamps", "5"]).resolved().removedMemberStampsPerObject == 5)
        #expect(try LimitOptions.parse(["--removed-member-stamps", "0"]).resolved().removedMemberStampsPerObject == 0)
    }

    @Test func fewerThanNoRemovedMemberStampsIsRefusedSayingWhy() throws {
        let error = #expect(throws: ValidationError.self) { try LimitOptions.parse(["--removed-member-stamps=-1"]).resolved() }
        #expect(error?.message.contains("removed member stamps") == true)
    }

    @Test func theAnnouncementLingerIsAnOptionWithADefault() throws {
        #expect(try LimitOptions.parse([]).resolved().announcementLingerSeconds == 0.005)
        #expect(try LimitOptions.parse(["--announcement-linger-seconds", "0"]).resolved().announcementLingerSeconds == 0)
        #expect(try LimitOptions.parse(["--announcement-linger-seconds", "0.02"]).resolved().announcementLingerSeconds == 0.02)
    }

    @Test func aNegativeOrLongAnnouncementLingerIsRefusedSayingWhy() throws {
        for value in ["-0.001", "1.5"] {
            let error = #expect(throws: ValidationError.self) { try LimitOptions.parse(["--announcement-linger-seconds=\(value)"]).resolved() }
            #expect(error?.message.contains("announcement linger") == true, "\(value)")
        }
    }

    @Test func jwksOnPrivateAddressesAreRefusedUnlessTheFlagAllowsThem() throws {
        #expect(try LimitOptions.parse([]).resolved().jwksAllowPrivateAddresses == false)
        #expect(try LimitOptions.parse(["--jwks-allow-private"]).resolved().jwksAllowPrivateAddresses == true)
    }
}
