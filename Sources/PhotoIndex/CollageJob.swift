public import MemoraSystem

/// `memora collage` as a library call: chooses the photos from the index
/// (``CollageSelector``), renders them into the layout (``CollageRenderer``) and writes the
/// file atomically, in the format its extension names (``CollageFileFormat``). A selection
/// with no photo is refused with the account of the source's photos (how many the index holds
/// and why each group was left out) and where to look; an index with no photo at all is
/// `PhotoIndexError.noIndex(path:isEmpty:)`; a chosen photo that cannot be read gives its
/// cell to a backup.
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
    /// A title line, placed where it covers no face (``CollageTitle``).
    public var title: CollageTitle?

    /// A collage of `request` from `database`.
    public init(database: PhotoIndexDatabase, request: CollageRequest, layout: CollageLayout = .grid2x3, scale: Int = 1, title: CollageTitle? = nil) {
        self.database = database
        self.title = title
        self.request = request
        self.layout = layout
        self.scale = scale
    }

    /// Chooses, renders and writes the collage to `path` (replaced atomically), in `format`, or
    /// by default in the format `path`'s extension names; an extension that names none of
    /// ``CollageFileFormat`` is refused before anything is read.
    public func run(writingTo path: String, format: CollageFileFormat? = nil) async throws(PhotoIndexError) -> Result {
        let (selection, format) = try check(writingTo: path, format: format)
        let collage = try await CollageRenderer.render(selection, layout: layout, scale: scale, title: title, format: format)
        do {
            try AtomicFileWriter.write(collage.encoded, to: path)
        } catch {
            throw .invalidRequest("the collage could not be written to \(path): \(error.reason)")
        }
        return Result(selection: selection, collage: collage)
    }

    /// A dry run of ``run(writingTo:format:)``: the selection the collage would be made of, after
    /// the same checks and refusals; nothing is decoded, rendered or written.
    public func check(writingTo path: String, format: CollageFileFormat? = nil) throws(PhotoIndexError) -> (selection: CollageSelection, format: CollageFileFormat) {
        guard let format = format ?? CollageFileFormat(path: path) else {
            throw .invalidRequest("\(path): the collage's name must end in \(CollageFileFormat.acceptedExtensions) (the extension chooses the format)")
        }
        if let title { _ = try title.checked() }
        if layout == .grid2x3 && request.count > 6 {
            throw .invalidRequest("the grid2x3 layout holds 6 photos, not \(request.count); use the dynamic layout for up to 10")
        }
        let selection = try CollageSelector(database: database).select(request)
        guard !selection.photos.isEmpty else {
            if try database.photoCount() == 0 { throw .noIndex(path: database.path, isEmpty: true) }
            throw .invalidRequest("no photo to make a collage from: " + selection.notes.joined(separator: "; ")
                + " (see `memora index stats` for the years, places and people in the index)")
        }
        return (selection, format)
    }
}
