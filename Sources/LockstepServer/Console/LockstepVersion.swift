/// The version the server reports (the console's Overview, `GET /1/{app}/__admin__/stats`).
/// No release has been tagged yet: whoever tags one sets this to the tag.
public enum LockstepVersion {
    public static let current = "0.1.0-dev"
}
