/// A command that could not finish, said in a sentence: ArgumentParser prints it as
/// `Error: …` without the usage text, which is for mistakes in the command line itself.
public struct CommandError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
