extension TextPatch: CustomStringConvertible {
    /// The hunk in diff-match-patch's patch text format, a unified diff with one escaped line
    /// per edit: `"@@ -1,8 +1,7 @@\n Th\n-at\n+e\n  qui\n"`. Lines start with a space for
    /// context, `-` for deleted and `+` for inserted text; positions count scalars from 1.
    public var description: String {
        var bytes = Array("@@ -\(Self.range(sourceStart, sourceLength)) +\(Self.range(targetStart, targetLength)) @@\n".utf8)
        for edit in edits {
            let sign = switch edit.operation {
            case .equal: UInt8(ascii: " ")
            case .insert: UInt8(ascii: "+")
            case .delete: UInt8(ascii: "-")
            }
            bytes.append(sign)
            DeltaEscaping.escape(edit.scalars, into: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A range as a unified diff writes it: `start,length` from 1, just `start` for one
    /// scalar, and the position before it for none.
    private static func range(_ start: Int, _ length: Int) -> String {
        switch length {
        case 0: "\(start),0"
        case 1: "\(start + 1)"
        default: "\(start + 1),\(length)"
        }
    }
}
