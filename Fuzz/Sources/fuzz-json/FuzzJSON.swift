import FuzzSupport
import LockstepCore

@main enum FuzzJSON {
    static func main() { runFuzzer { data, count in fuzzJSON(data, count) } }
}

/// The JSON reader, which every message from a client or a peer goes through first.
///
/// Laws: whatever it accepts, the serializer writes as JSON that reads back to the same value,
/// compact and pretty, and that writes again to the same bytes; the located reader accepts
/// exactly what the plain one does, with the same value and a location for the root.
func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = FuzzInput(data, count).bytes
    let located = try? JSONParser().parseLocated(bytes)
    guard let value = try? JSONParser().parse(bytes) else {
        law(located == nil, "parseLocated accepts what parse refuses")
        return 0
    }
    law(located?.value == value, "parseLocated reads another value than parse")
    law(located?.locations[JSONPath()] != nil, "parseLocated has no location for the root")

    let compact = JSONSerializer().bytes(value)
    let reread = try? JSONParser().parse(compact)
    law(reread == value, "the compact form \(String(decoding: compact, as: UTF8.self)) reads back as another value")
    law(reread.map(JSONSerializer().bytes) == compact, "the compact form is not stable")
    let pretty = JSONSerializer(prettyPrinted: true).bytes(value)
    law((try? JSONParser().parse(pretty)) == value, "the pretty form reads back as another value")
    law((try? JSONValue(parsing: String(decoding: compact, as: UTF8.self))) == value, "reading text differs from reading bytes")
    return 0
}
