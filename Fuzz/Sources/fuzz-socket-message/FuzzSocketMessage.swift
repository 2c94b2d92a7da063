import FuzzSupport
import LockstepCore
@testable import ServerParsers

@main enum FuzzSocketMessage {
    static func main() { runFuzzer { data, count in fuzzSocketMessage(data, count) } }
}

/// What a streaming client sends: the frame's split into connection and channel messages, and
/// the payloads the server reads from it (a change, a change version).
///
/// Input: one text frame, such as `0:c:{"id":"k","ccid":"x","o":"M","v":{…}}`. A frame whose
/// payload (or whole text) is JSON is also read as a change, so the fuzzer reaches the change
/// reader without first finding the frame syntax.
///
/// Laws: every frame gets an answer; a change the server accepts has a diff that writes back
/// the same; a change version reads back from its text.
func fuzzSocketMessage(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    let message = SocketMessage(input.text)
    var payloads = [input.bytes]
    if case .channel(let channel, let command, let payload?) = message {
        law(channel >= 0, "a negative channel number \(channel)")
        payloads.append(Array(payload.utf8))
        if command == "cv", let version = ChangeVersion(payload) {
            law(ChangeVersion(version.description) == version, "the change version \(payload) does not read back")
        }
    }
    for payload in payloads {
        guard let json = try? JSONValue(parsing: payload) else { continue }
        // Clients send changes one at a time (`c:{…}`) or, over HTTP, as a list.
        for value in json.arrayValue ?? [json] {
            guard let change = try? ChangeMessage.parse(value, clientID: "fuzz") else { continue }
            if case .modify(let diff?, _) = change.operation {
                law((try? ObjectDiff(json: diff.json)) == diff, "an accepted change's diff does not read back")
            }
            _ = ChangeMessage.rejection(ChangeRejection(.badRequest, "fuzz"), key: change.key, changeID: change.changeID, clientID: "fuzz")
        }
    }
    return 0
}
