import ArgumentParser
import LockstepClient

/// One thing to move: what the team lists at the customer's home and follows to the truck.
struct Item: Codable, Sendable, Equatable {
    enum Status: String, Codable, Sendable, CaseIterable, ExpressibleByArgument {
        case listed, packed, loaded, delivered, damaged, missing
    }

    var name: String
    var category: String
    var barcode: String?
    /// References to photos kept elsewhere (file names or URLs).
    var photos: [String]?
    var status: Status
    /// Photos taken on site (`inventory photo add`), by name: each is a member `photo-<name>`
    /// of the item holding an attachment's reference, so they travel as blobs beside it.
    var pictures: [String: Attachment] = [:]

    init(name: String, category: String, barcode: String?, photos: [String]?, status: Status) {
        self.name = name
        self.category = category
        self.barcode = barcode
        self.photos = photos
        self.status = status
    }

    /// The member that holds the picture `name`.
    static func member(picture name: String) -> String { "photo-" + name }

    private enum CodingKeys: String, CodingKey {
        case name, category, barcode, photos, status
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        category = try container.decode(String.self, forKey: .category)
        barcode = try container.decodeIfPresent(String.self, forKey: .barcode)
        photos = try container.decodeIfPresent([String].self, forKey: .photos)
        status = try container.decode(Status.self, forKey: .status)
        let members = try decoder.container(keyedBy: MemberName.self)
        for key in members.allKeys where key.stringValue.hasPrefix("photo-") {
            guard let reference = try? members.decode(PictureReference.self, forKey: key) else { continue }
            pictures[String(key.stringValue.dropFirst("photo-".count))] = reference.attachment
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(category, forKey: .category)
        try container.encodeIfPresent(barcode, forKey: .barcode)
        try container.encodeIfPresent(photos, forKey: .photos)
        try container.encode(status, forKey: .status)
        var members = encoder.container(keyedBy: MemberName.self)
        for (name, attachment) in pictures {
            try members.encode(PictureReference(attachment: attachment), forKey: MemberName(Self.member(picture: name)))
        }
    }
}

/// Any member of an item, by name.
private struct MemberName: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// An attachment's reference as the item's member holds it: `{"$blob": "sha256:…", "size", "type"}`.
private struct PictureReference: Codable {
    var attachment: Attachment

    init(attachment: Attachment) {
        self.attachment = attachment
    }

    private enum Keys: String, CodingKey {
        case blob = "$blob", size, type
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let blob = try container.decode(String.self, forKey: .blob)
        guard blob.hasPrefix("sha256:") else {
            throw DecodingError.dataCorruptedError(forKey: .blob, in: container, debugDescription: "not a blob's name: \(blob)")
        }
        attachment = Attachment(
            sha256: String(blob.dropFirst("sha256:".count)), size: try container.decode(Int64.self, forKey: .size),
            type: try container.decode(String.self, forKey: .type))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode("sha256:" + attachment.sha256, forKey: .blob)
        try container.encode(attachment.size, forKey: .size)
        try container.encode(attachment.type, forKey: .type)
    }
}
