import ChildProcesses
import Foundation
import LockstepCore

/// The console's browser scenarios (`console_browser.py`): headless Chromium driven through
/// chromedriver by selenium, against a `lockstep serve` started for each scenario.
enum ConsoleBrowser {
    static let chromium = "/usr/bin/chromium"
    static let chromedriver = "/usr/bin/chromedriver"
    /// python3 as the PATH finds it (pip's, where selenium is), like the simperium3 tests.
    static let env = "/usr/bin/env"
    static let script = ExternalPaths.repositoryRoot.appendingPathComponent("Tests/LockstepClientTests/Console/console_browser.py")
    /// Where each scenario's screenshots go: kept after the run, as the tests' artifacts.
    static let screenshots = ExternalPaths.repositoryRoot.appendingPathComponent(".build/console-screenshots")

    static let isCI = ProcessInfo.processInfo.environment["CI"] != nil

    /// Whether Chromium, its driver and selenium are installed.
    static let isInstalled: Bool = {
        let manager = FileManager.default
        guard manager.isExecutableFile(atPath: chromium), manager.isExecutableFile(atPath: chromedriver),
            let process = try? ChildProcess.spawn(env, arguments: ["python3", "-c", "import selenium"], output: .discarded)
        else { return false }
        return process.waitUntilExit().terminationStatus == 0
    }()

    /// Whether this run was asked for the browser tests (`LOCKSTEP_BROWSER_TESTS=1`).
    ///
    /// They run on their own, never beside the rest of the suite: Chromium takes both cores of
    /// a small machine for seconds at a time, and the socket tests beside it, which count on
    /// pings answered within a heartbeat timeout, failed under it (measured in a full run).
    static let isAsked = ProcessInfo.processInfo.environment["LOCKSTEP_BROWSER_TESTS"] == "1"

    /// Run when asked and installed; when asked under CI, a missing browser is a failure.
    static let shouldRun = isAsked && (isInstalled || isCI)
    static let howToRun = "the console's browser tests run on their own: LOCKSTEP_BROWSER_TESTS=1 swift test --filter ConsoleBrowserTests "
        + "(as .ci/run does, after the rest), with Chromium, chromedriver and selenium installed: "
        + "apt-get install chromium chromium-driver && pip install selenium; with CI=1 a missing browser fails them"

    /// A `lockstep serve` for one scenario: the server's URL and the default app's credentials.
    struct Server {
        let process: ToolProcess
        let baseURL: String
        let appID: String
        let adminToken: String
        let directory: URL

        func stop() {
            process.kill()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func startServer(_ extraArguments: [String] = []) async throws -> Server {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-console-\(UUID().uuidString)")
        let data = directory.appendingPathComponent("data").path
        let process = try ToolProcess.launch(
            "lockstep", name: "serve", arguments: ["serve", "--data-dir", data, "--port", "0", "--log-level", "warning"] + extraArguments)
        guard let listening = await process.next(startingWith: "Lockstep is listening on ", within: .seconds(30)) else {
            process.kill()
            throw ConsoleBrowserError("the server did not start:\n\(process.transcript)")
        }
        let base = String(listening.dropFirst("Lockstep is listening on ".count).prefix { $0 != "," })
        let credentials = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: data + "/default-app.json"))))
        guard let app = credentials["app_id"]?.stringValue, let token = credentials["admin_token"]?.stringValue else {
            process.kill()
            throw ConsoleBrowserError("default-app.json holds no app id and admin token")
        }
        return Server(process: process, baseURL: base, appID: app, adminToken: token, directory: directory)
    }

    /// Runs one scenario of `script` (the console's, unless another's: lockstep.js has one too)
    /// against `server`, with `environment` added to its own; its exit status and everything it
    /// printed.
    static func run(
        _ scenario: String, on server: Server, script: URL = script, environment: [String: String] = [:]
    ) async throws -> (passed: Bool, output: String) {
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        let arguments = [
            "python3", script.path, scenario, server.baseURL, server.appID, server.adminToken, screenshots.path, LockstepTool.executable.path,
        ]
        let process = try ChildProcess.spawn(env, arguments: arguments, environment: environment, output: .captured)
        let (output, status) = try await onOwnThread { (process.readAllOutput(), process.waitUntilExit()) }
        let text = String(decoding: output, as: UTF8.self)
        print("browser \(scenario):\n\(text)")
        return (status.terminationStatus == 0 && text.contains("ok \(scenario)"), text)
    }
}

struct ConsoleBrowserError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
