import PropertyBased
import Testing
@testable import LockstepCore

@Suite("TextDelta malformed input")
struct TextDiffMalformedDeltaTests {
    /// Strings built from delta syntax and text pieces: mostly wrong, sometimes right.
    private static let garbage = Gen<String?>.element(of: RandomText.pieces + ["=", "-", "+", "\t", "0", "1", "2", "7", "%", "F", "%C3", "%A9", "%F0%9F"])
        .map { $0! }
        .array(of: 0 ... 20)
        .map { $0.joined() }

    @Test func garbageNeverCrashes() async {
        await propertyCheck(count: 300, input: Self.garbage, RandomText.text) { delta, text throws in
            do throws(TextDeltaError) {
                _ = try TextDelta.apply(delta, to: text)
                // Accepted, so its counts cover the text exactly.
                let counts = delta.split(separator: "\t").compactMap { token in
                    token.first == "=" || token.first == "-" ? Int(token.dropFirst()) : nil
                }
                #expect(counts.reduce(0, +) == text.utf16.count)
            } catch {
                #expect(!error.description.isEmpty)
            }
            _ = try? TextDelta.transform(delta, over: delta, base: text)
        }
    }

    @Test func wrongLengthsAreRejected() async {
        await propertyCheck(input: RandomText.related, Gen.int(in: 1 ... 5)) { texts, extra throws in
            let (old, new) = texts
            let delta = TextDelta.make(from: old, to: new)
            let tooLong = delta.isEmpty ? "=\(extra)" : delta + "\t=\(extra)"
            #expect(throws: TextDeltaError(.lengthMismatch(deltaLength: old.utf16.count + extra, sourceLength: old.utf16.count))) {
                try TextDelta.apply(tooLong, to: old)
            }
        }
    }

    @Test func countsThatSplitASurrogatePairAreRejected() async {
        await propertyCheck(input: RandomText.text, RandomText.text, Gen<String?>.element(of: ["😀", "𝄞", "👍🏽"]).map { $0! }) { before, after, emoji throws in
            let text = before + emoji + after
            let split = before.utf16.count + 1
            for delta in ["=\(split)\t-\(text.utf16.count - split)", "-\(split)\t+x\t=\(text.utf16.count - split)"] {
                #expect(throws: TextDeltaError(.splitsSurrogatePair(utf16Offset: split))) {
                    try TextDelta.apply(delta, to: text)
                }
            }
        }
    }

    @Test func badEscapesAreRejected() async {
        let badEscapes = Gen<String?>.element(of: ["%", "%G0", "%0", "%0g", "% 1", "%%"]).map { $0! }
        let badUTF8 = Gen<String?>.element(of: ["%C3", "%FF", "%80", "%F0%9F%98", "%ED%B0%80", "%C1%BF", "%F5%80%80%80"]).map { $0! }
        await propertyCheck(input: RandomText.text, badEscapes, badUTF8) { text, escape, invalid throws in
            let keep = "=\(text.utf16.count)"
            #expect(throws: TextDeltaError.self) { try TextDelta.apply("\(keep)\t+ab\(escape)", to: text) }
            #expect(throws: TextDeltaError(.invalidUTF8(token: "+\(invalid)"))) { try TextDelta.apply("+\(invalid)\t\(keep)", to: text) }
        }
    }
}
