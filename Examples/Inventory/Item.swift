import ArgumentParser

/// One thing to move: what the team lists at the customer's home and follows to the truck.
struct Item: Codable, Sendable, Equatable {
    enum Status: String, Codable, Sendable, CaseIterable, ExpressibleByArgument {
        case listed, packed, loaded, delivered, damaged, missing
    }

    var name: String
    var category: String
    var barcode: String?
    /// References to photos (file names or URLs); the photos themselves travel separately.
    var photos: [String]?
    var status: Status
}
