import ArgumentParser
import Foundation

/// An on/off setting from the environment, such as `LOCKSTEP_WEBHOOKS_ALLOW_PRIVATE`: `1` or
/// `true` is on, `0` or `false` off, unset `nil`; anything else is refused, naming the variable.
func environmentSwitch(_ variable: String) throws -> Bool? {
    guard let text = ProcessInfo.processInfo.environment[variable] else { return nil }
    guard ["0", "1", "true", "false"].contains(text) else { throw ValidationError("\(variable) must be 1 or 0, not \(text.prefix(20))") }
    return text == "1" || text == "true"
}
