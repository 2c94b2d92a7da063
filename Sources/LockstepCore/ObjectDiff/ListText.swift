/// The text form of a list that `dL` deltas edit: one JSON element per line.
///
/// Simperium's clients disagree on the text: the Python and JavaScript references write each
/// element as compact JSON followed by a newline (Python escaping non-ASCII as `\uXXXX`), while
/// simperium-ios joins elements with newlines, no trailing newline, and writes strings in quotes
/// without escaping. A delta records its source length, so ``ListText`` tries each form and uses
/// the one the delta fits.
enum ListText {
    enum Form: CaseIterable {
        /// Compact JSON per element, each followed by a newline, non-ASCII as UTF-8.
        case reference
        /// As ``reference``, but with non-ASCII escaped as Python's `json.dumps` does.
        case asciiEscaped
        /// simperium-ios: newline-joined, strings quoted but not escaped.
        case apple
    }

    static func text(of elements: [JSONValue], in form: Form) -> String {
        switch form {
        case .reference:
            return elements.map { $0.description + "\n" }.joined()
        case .asciiEscaped:
            return elements.map { escapingNonASCII($0.description) + "\n" }.joined()
        case .apple:
            return elements.map { element in
                if case .string(let text) = element { return "\"" + text + "\"" }
                return element.description
            }.joined(separator: "\n")
        }
    }

    static func elements(of text: String, in form: Form) -> [JSONValue]? {
        var elements: [JSONValue] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if let element = try? JSONValue(parsing: String(line)) {
                elements.append(element)
            } else if form == .apple, line.count >= 2, line.first == "\"", line.last == "\"" {
                elements.append(.string(String(line.dropFirst().dropLast())))
            } else {
                return nil
            }
        }
        return elements
    }

    /// Applies a `dL` delta in whichever text form it was made against.
    static func apply(_ delta: String, to elements: [JSONValue], at path: DiffPath) throws(DiffError) -> [JSONValue] {
        var lastError = "no text form of the list fits the delta"
        for form in Form.allCases {
            let text = text(of: elements, in: form)
            let edited: String
            do {
                edited = try TextDelta.apply(delta, to: text)
            } catch {
                lastError = "list delta does not apply: \(error)"
                continue
            }
            guard let result = Self.elements(of: edited, in: form) else {
                throw DiffError(.badTextDelta, at: path, "list delta leaves a line that is not a JSON value")
            }
            return result
        }
        throw DiffError(.badTextDelta, at: path, lastError)
    }

    /// The `dL` delta from one list to another, in the reference form.
    static func delta(from old: [JSONValue], to new: [JSONValue]) -> String {
        TextDelta.make(from: text(of: old, in: .reference), to: text(of: new, in: .reference))
    }

    private static func escapingNonASCII(_ json: String) -> String {
        var result = ""
        result.reserveCapacity(json.utf8.count)
        for unit in json.utf16 {
            if unit < 0x80 {
                result.unicodeScalars.append(Unicode.Scalar(unit)!)
            } else {
                let hex = String(unit, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return result
    }
}
