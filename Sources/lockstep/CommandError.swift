/// A command that could not finish, said in a sentence: ArgumentParser prints it as
/// `Error: …` without the usage text, which is for mistakes in the command line itself.
struct CommandError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
