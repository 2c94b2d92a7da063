import Foundation
import Testing

@Suite("lockstep diff, patch and transform")
struct DiffToolTests {
    @Test("a file that is not there gets a message saying so, not Foundation's error dump")
    func missingFile() async throws {
        let result = try await LockstepTool.run(["diff", "/nonexistent/a.json", "-"])
        #expect(result.status != 0)
        #expect(result.output.contains("cannot read /nonexistent/a.json"), "\(result.output)")
        #expect(!result.output.contains("NSCocoaErrorDomain"), "\(result.output)")
    }

    @Test("two rewrites of one word do not merge letter by letter")
    func wordRewritesConflict() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("difftool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ json: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(json.utf8).write(to: url)
            return url.path
        }
        let base = try file("base.json", #"{"status":"listed"}"#)
        let packed = try file("packed.json", #"{"status":{"o":"d","v":"-4\t+pack\t=2"}}"#)
        let loaded = try file("loaded.json", #"{"status":{"o":"d","v":"=1\t-3\t+oad\t=2"}}"#)
        let result = try await LockstepTool.run(["transform", "--winner", "a", base, packed, loaded])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(#""status" : "packed""#) || result.output.contains(#""status": "packed""#), "\(result.output)")
        #expect(!result.output.contains("oaded\""), "\(result.output)")
        #expect(result.output.contains("\"orders_agree\" : true") || result.output.contains("\"orders_agree\": true"), "\(result.output)")
    }
}
