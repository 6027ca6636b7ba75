internal import MemoraSystem

/// `memora collage` as a library call: chooses the photos from the index
/// (``CollageSelector``), renders them into the layout (``CollageRenderer``) and writes the
/// JPEG atomically. A selection with no photo is refused with the selector's notes and where
/// to look; a chosen photo that cannot be read gives its cell to a backup.
public struct CollageJob: Sendable {
    /// What the job chose and drew.
    public struct Result: Sendable {
        /// The selection, with why each photo was or was not chosen.
        public var selection: CollageSelection
        /// The rendered collage (its JPEG is already written).
        public var collage: RenderedCollage
    }

    /// The index to choose from.
    public var database: PhotoIndexDatabase
    /// What the collage is about, the date range, how many photos and the seed.
    public var request: CollageRequest
    /// The layout.
    public var layout: CollageLayout
    /// 1 or 2 (twice the pixels).
    public var scale: Int

    /// A collage of `request` from `database`.
    public init(database: PhotoIndexDatabase, request: CollageRequest, layout: CollageLayout = .grid2x3, scale: Int = 1) {
        self.database = database
        self.request = request
        self.layout = layout
        self.scale = scale
    }

    /// Chooses, renders and writes the collage to `path` (replaced atomically).
    public func run(writingTo path: String) async throws(PhotoIndexError) -> Result {
        if layout == .grid2x3 && request.count > 6 {
            throw .invalidRequest("the grid2x3 layout holds 6 photos, not \(request.count); use the dynamic layout for up to 10")
        }
        let selection = try CollageSelector(database: database).select(request)
        guard !selection.photos.isEmpty else {
            throw .invalidRequest("no photo to make a collage from: " + selection.notes.joined(separator: "; ")
                + " (see `memora index stats` for the years, places and people in the index)")
        }
        let collage = try await CollageRenderer.render(selection, layout: layout, scale: scale)
        do {
            try AtomicFileWriter.write(collage.jpeg, to: path)
        } catch {
            throw .invalidRequest("the collage could not be written to \(path): \(error.reason)")
        }
        return Result(selection: selection, collage: collage)
    }
}
