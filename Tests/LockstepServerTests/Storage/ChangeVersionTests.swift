import LockstepServer
import PropertyBased
import Testing

/// A change version's text: 24 lowercase hex digits, the epoch's 8 and the sequence's 16, and
/// read back to the same version.
@Suite("Change versions as text")
struct ChangeVersionTests {
    @Test("a version is its epoch and sequence in zero-padded hex, and reads back")
    func textIsPaddedHexAndReadsBack() async {
        await propertyCheck(count: 500, input: Gen.uint32(in: .min ... .max), Gen.int64(in: 0 ... .max), Gen.int(in: 0...3)) { epoch, sequence, scale in
            // Small numbers too, where the padding shows.
            let version = ChangeVersion(epoch: epoch >> (8 * UInt32(scale)), sequence: sequence >> (20 * Int64(scale)))
            let text = version.description
            let epochDigits = String(version.epoch, radix: 16), sequenceDigits = String(version.sequence, radix: 16)
            #expect(text == String(repeating: "0", count: 8 - epochDigits.count) + epochDigits
                + String(repeating: "0", count: 16 - sequenceDigits.count) + sequenceDigits)
            #expect(ChangeVersion(text) == version)
            var bytes: [UInt8] = [0x7B]
            version.appendDigits(to: &bytes)
            #expect(bytes == [0x7B] + Array(text.utf8))
        }
    }
}
