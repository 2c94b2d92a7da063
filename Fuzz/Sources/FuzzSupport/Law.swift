/// Stops the run when a law of the code under test fails for this input, so that libFuzzer
/// keeps the input as a crash: a parser that answers wrongly is as much a finding as one that
/// crashes.
public func law(
    _ holds: @autoclosure () throws -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    let outcome: Bool
    do {
        outcome = try holds()
    } catch {
        fatalError("law threw \(error): \(message())", file: file, line: line)
    }
    guard outcome else { fatalError("law broken: \(message())", file: file, line: line) }
}
