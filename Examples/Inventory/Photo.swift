import ArgumentParser
import Foundation
import LockstepClient

/// `inventory photo …`: pictures of an item taken on site, attached to it as blobs. They are
/// kept on the phone at once and uploaded on the next sync, after the team's data changes.
struct Photo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Attach a photo to an item, or save one of its photos to a file.", subcommands: [AddPhoto.self, SavePhoto.self])
}

struct AddPhoto: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Attach a photo (a JPEG, PNG or HEIC file) to an item.")

    @OptionGroup var job: JobOptions
    @Argument(help: "The item's key.") var key: String
    @Argument(help: "The photo's file.") var file: String
    @Option(help: "The photo's name on the item (default: the file's name without its extension).") var name: String?

    func run() async throws {
        let url = URL(fileURLWithPath: file)
        guard FileManager.default.isReadableFile(atPath: url.path) else { throw ValidationError("there is no readable file at \(file)") }
        let name = name ?? url.deletingPathExtension().lastPathComponent
        guard !name.isEmpty, name.utf8.count <= 64, !name.contains("/") else {
            throw ValidationError("a photo's name is 1 to 64 characters without /")
        }
        let (client, items) = try job.open()
        do {
            guard try items.get(key) != nil else { throw ValidationError("there is no item \(key) on this phone") }
            let attachment = try await items.raw.attach(
                contentsOf: url, type: Self.mediaType(of: url), to: key, member: Item.member(picture: name))
            print("\(name)\t\(attachment.size) bytes\tuploaded on the next sync")
        } catch {
            await client.close()
            throw error
        }
        await client.close()
    }

    static func mediaType(of url: URL) -> String {
        switch url.pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "heic": "image/heic"
        default: "application/octet-stream"
        }
    }
}

struct SavePhoto: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save", abstract: "Write one of an item's photos to a file (downloaded if this phone has no copy).")

    @OptionGroup var job: JobOptions
    @Argument(help: "The item's key.") var key: String
    @Argument(help: "The photo's name on the item.") var name: String
    @Option(help: "The file to write.") var output: String

    func run() async throws {
        let (client, items) = try job.open()
        let bucket = items.raw
        guard let attachment = try bucket.attachment(Item.member(picture: name), of: key) else {
            await client.close()
            throw ValidationError("item \(key) has no photo \(name) on this phone: sync first")
        }
        do {
            try await bucket.data(for: attachment).write(to: URL(fileURLWithPath: output))
        } catch {
            await client.close()
            throw error
        }
        print("\(output)\t\(attachment.size) bytes")
        await client.close()
    }
}
