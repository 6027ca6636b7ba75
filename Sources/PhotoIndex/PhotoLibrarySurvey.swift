/// What a library holds now: its photos, and what it could not look at (a folder or file that
/// cannot be read), each with the reason. The index never treats what it could not look at as gone.
public struct PhotoLibrarySurvey: Sendable, Hashable, Codable {
    /// Every photo, in a stable order.
    public var assets: [PhotoAsset]
    /// Files and folders that could not be read, with why (the reason does not repeat the path).
    public var unreadable: [RejectedPhoto]
    /// Folders that could not be listed: the photos indexed under them are kept, not removed.
    public var unlistedFolders: [String]

    /// A survey.
    public init(assets: [PhotoAsset], unreadable: [RejectedPhoto] = [], unlistedFolders: [String] = []) {
        self.assets = assets
        self.unreadable = unreadable
        self.unlistedFolders = unlistedFolders
    }
}
