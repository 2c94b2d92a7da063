/// Two versions of an object compared, as people read a history: the jsondiff that turns one
/// into the other, and each string that differs as a text diff.
///
/// ```swift
/// let comparison = ObjectComparison(from: ["title": "Sofa", "room": "lounge"], to: ["title": "Blue Sofa"])
/// comparison.diff.json   // {"room":{"o":"-"},"title":{"o":"d","v":"+Blue \t=4"}}
/// comparison.text        // ["title": [+"Blue ", ="Sofa"]]
/// ```
///
/// A string is compared as text wherever both versions hold a different string at the same
/// place, found by descending into members that are objects in both (not into lists, whose
/// items may have moved); its place is written as a ``DiffPath`` is: `notes`, `address.street`,
/// `["two words"]`. The text diffs are cleaned up for reading
/// (``TextDiff/cleanUpSemantically()``).
public struct ObjectComparison: Sendable, Equatable {
    /// The jsondiff from the older version to the newer, as every client applies it.
    public var diff: ObjectDiff
    /// Each string that differs, by its place (a ``DiffPath``'s description).
    public var text: [String: TextDiff]

    public init(diff: ObjectDiff, text: [String: TextDiff]) {
        self.diff = diff
        self.text = text
    }

    /// Compares `old` with `new`.
    public init(from old: JSONObject, to new: JSONObject) {
        diff = ObjectDiff(from: old, to: new)
        text = [:]
        Self.compareStrings(old, new, at: DiffPath(), into: &text)
    }

    private static func compareStrings(_ old: JSONObject, _ new: JSONObject, at path: DiffPath, into text: inout [String: TextDiff]) {
        for (name, newValue) in new {
            guard let oldValue = old[name], oldValue != newValue else { continue }
            switch (oldValue, newValue) {
            case (.string(let before), .string(let after)):
                var diff = TextDiff(from: before, to: after)
                diff.cleanUpSemantically()
                text[path.appending(member: name).description] = diff
            case (.object(let before), .object(let after)):
                compareStrings(before, after, at: path.appending(member: name), into: &text)
            default:
                continue
            }
        }
    }

    /// `{"diff":{…jsondiff…},"text":{"notes":[["=","kept "],["-","old"],["+","new"]]}}`: each
    /// text diff as its runs in order, `=` kept, `-` only in the older, `+` only in the newer.
    public var json: JSONValue {
        .object([
            "diff": diff.json,
            "text": .object(text.mapValues { diff in
                .array(diff.edits.map { edit in [.string(Self.symbol(of: edit.operation)), .string(edit.text)] })
            }),
        ])
    }

    /// Reads what ``json`` writes.
    public init(json: JSONValue) throws(DiffError) {
        guard case .object(let fields) = json, let diffJSON = fields["diff"], case .object(let texts)? = fields["text"] else {
            throw DiffError(.malformed, at: DiffPath(), "a comparison is {\"diff\":{…},\"text\":{…}}")
        }
        diff = try ObjectDiff(json: diffJSON)
        text = [:]
        for (place, runs) in texts {
            guard case .array(let runs) = runs else { throw DiffError(.malformed, at: DiffPath(), "the text diff of \(place) is not a list of runs") }
            var edits: [TextEdit] = []
            for run in runs {
                guard case .array(let pair) = run, pair.count == 2, let symbol = pair[0].stringValue, let runText = pair[1].stringValue,
                    let operation = Self.operation(of: symbol)
                else { throw DiffError(.malformed, at: DiffPath(), "a run of the text diff of \(place) is not [\"=\"|\"-\"|\"+\", text]") }
                edits.append(TextEdit(operation, runText))
            }
            text[place] = TextDiff(edits)
        }
    }

    private static func symbol(of operation: TextEdit.Operation) -> String {
        switch operation {
        case .equal: "="
        case .delete: "-"
        case .insert: "+"
        }
    }

    private static func operation(of symbol: String) -> TextEdit.Operation? {
        switch symbol {
        case "=": .equal
        case "-": .delete
        case "+": .insert
        default: nil
        }
    }
}
