import ArgumentParser
import Foundation
import LockstepServer

/// The options of `lockstep serve` that set up the timed store.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("store-config"), help: ArgumentHelp("The store configuration (JSON): stores, items, overrides.", valueName: "file"))
    var configPath: String?

    @Option(name: .customLong("store-seed-file"), help: ArgumentHelp("The file holding the secret store seed (env LOCKSTEP_STORE_SEED).", valueName: "file"))
    var seedFile: String?

    /// The store, or `nil` when no configuration was given; a bad configuration or seed stops
    /// the server before it listens, with the file, line and field at fault.
    func releaseService(clock: ServerClockSource) throws -> ReleaseService? {
        guard let configPath else {
            guard seedFile == nil else { throw ValidationError("--store-seed-file needs --store-config") }
            return nil
        }
        let seedText: String
        if let seedFile {
            guard let data = FileManager.default.contents(atPath: seedFile) else { throw ReleaseSetupError("cannot read the store seed file \(seedFile)") }
            seedText = String(decoding: data, as: UTF8.self)
        } else if let environmentSeed = ProcessInfo.processInfo.environment["LOCKSTEP_STORE_SEED"] {
            seedText = environmentSeed
        } else {
            throw ValidationError("--store-config needs a secret seed: --store-seed-file FILE or LOCKSTEP_STORE_SEED (try: openssl rand -hex 32)")
        }
        // Thrown as they are, so the message is the file, line and field alone, without usage.
        return try ReleaseService.load(configPath: configPath, seedText: seedText, now: { clock.now() })
    }
}
