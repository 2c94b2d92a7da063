import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepClient
import LockstepCore

/// `lockstep client attach BUCKET KEY MEMBER FILE`: the file goes into the store at once, the
/// object's member refers to it, and the upload waits in the queue (for `sync`, or at once with
/// `--upload`).
struct ClientAttach: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach", abstract: "Attach a file to an object's member and queue its upload.")

    @ParentCommand var parent: ClientCommand
    @Argument(help: "The bucket.") var bucket: String
    @Argument(help: "The object's key (created if there is none).") var key: String
    @Argument(help: "The member that refers to the file.") var member: String
    @Argument(help: "The file.") var file: String
    @Option(help: "Its media type.") var type: String = "application/octet-stream"
    @Option(help: "The upload's priority: low (after every data change), normal or urgent.") var priority = "low"
    @Flag(help: "Sync until the upload completed, showing its progress.") var upload = false
    @Option(help: "With --upload, give up after this many seconds.") var timeout: Double = 600

    func validate() throws {
        guard Self.priorities[priority] != nil else { throw ValidationError("--priority is low, normal or urgent, not \(priority)") }
    }

    private static let priorities: [String: ChangePriority] = ["low": .low, "normal": .normal, "urgent": .urgent]

    func run() async throws {
        let client = try parent.options.open()
        let attachment = try await client.bucket(bucket).attach(
            contentsOf: URL(fileURLWithPath: file), type: type, to: key, member: member, priority: Self.priorities[priority] ?? .low)
        say("attached \(bucket)/\(key).\(member) sha256:\(attachment.sha256) \(attachment.size) bytes")
        if upload {
            let display = ProgressDisplay()
            let progress = client.progress(of: attachment)
            await client.sync.start()
            let shown = Task {
                var last: TransferProgress?
                for await step in progress {
                    display.show(step, label: URL(fileURLWithPath: file).lastPathComponent)
                    last = step
                }
                return last
            }
            do {
                try await client.sync.waitUntilIdle(timeout: .seconds(timeout))
            } catch {
                await client.close()
                throw error
            }
            // Closing ends the progress stream once what it holds is shown.
            await client.close()
            if case .failed(let error)? = await shown.value?.state {
                throw CommandError("the upload failed: \(error)")
            }
            return
        }
        await client.close()
    }
}

/// `lockstep client download BUCKET KEY MEMBER [--output FILE]`: the attachment's bytes, from the
/// store or downloaded, with a progress bar.
struct ClientDownload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download", abstract: "Write the attachment an object's member refers to into a file.")

    @ParentCommand var parent: ClientCommand
    @Argument(help: "The bucket.") var bucket: String
    @Argument(help: "The object's key.") var key: String
    @Argument(help: "The member that refers to an attachment.") var member: String
    @Option(help: "Where to write it; by default its SHA-256 in the current directory.") var output: String?

    func run() async throws {
        let client = try parent.options.open()
        let items = try client.bucket(bucket)
        guard let attachment = try items.attachment(member, of: key) else {
            await client.close()
            throw CommandError("\(bucket)/\(key) has no attachment in member \(member)")
        }
        let display = ProgressDisplay()
        let progress = client.transfers
        let shown = Task {
            for await step in progress where step.attachment.sha256 == attachment.sha256 && step.direction == .download {
                display.show(step)
                if step.isFinished { break }
            }
        }
        do {
            let source = try await items.fileURL(for: attachment)
            let target = URL(fileURLWithPath: output ?? attachment.sha256)
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: source, to: target)
            shown.cancel()
            say("wrote \(target.path): \(attachment.size) bytes, \(attachment.type)")
        } catch {
            shown.cancel()
            await client.close()
            throw error
        }
        await client.close()
    }
}
