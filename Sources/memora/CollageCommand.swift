import ArgumentParser
import Foundation
import MemoraCore
import MemoraSystem
import PhotoIndex

/// `memora collage`: a memory collage from the index.
struct CollageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collage",
        abstract: "Make a memory collage by year, place or person from the photo index (`memora index` first).")

    @OptionGroup var database: IndexCommand.IndexDatabaseOptions
    @Option(help: "Photos taken in this year.") var year: Int?
    @Option(help: "Photos inside a saved place's circle (memora places), else photos whose place name matches (\"Lyon\" matches \"Lyon, France\").") var place: String?
    @Option(help: "With --place: the caption database holding the saved places (default: $XDG_DATA_HOME/memora/memora.sqlite).") var placesDb: String?
    @Option(help: "Photos within --radius km of LAT,LON.") var near: String?
    @Option(help: "The radius for --near, in kilometres.") var radius: Double = 25
    @Option(help: "Photos showing this person, by name or number (their face must cover more than --min-face-share of the photo).") var person: String?
    @Option(help: "Photos of a theme: beach, mountains, snow, food, dogs, cats, birds, flowers, buildings, cars, boats (see `memora index stats`).") var theme: String?
    @Option(help: ArgumentHelp("With --person: the share of the photo the person's face must exceed (above 0, at most 1).", valueName: "fraction"))
    var minFaceShare = CollageSelector.minimumFaceShare
    @Option(help: "Only photos from: all-time, last-year, last-5-years.") var range = "all-time"
    @Option(help: "How many photos (1-10).") var count = 6
    @Option(help: "The shuffle seed: the same seed gives the same collage; shuffle with the next one.") var seed: UInt64 = 0
    @Option(help: "grid2x3 (1200x1500, 2x3) or dynamic (square, 2 or 3 columns).") var layout = "grid2x3"
    @Option(help: "1 or 2.") var scale = 1
    @Option(help: ArgumentHelp("The file to write; its extension chooses the format: .jpg, .jpeg, .png, .webp, .heic, .heif or .avif.", valueName: "file"))
    var out: String
    @Option(help: ArgumentHelp("A title line (a date range, names), placed where it covers no face.", valueName: "text")) var title: String?
    @Flag(help: "Explain why each photo was chosen and why close candidates were not.") var explain = false
    @Flag(help: "Print the selection as JSON.") var json = false
    @OptionGroup var output: WriteOutputOptions

    func validate() throws {
        let sources = [year != nil, place != nil, near != nil, person != nil, theme != nil].filter { $0 }.count
        guard sources == 1 else { throw ValidationError("give exactly one of --year, --place, --near, --person or --theme") }
        guard DateRangePreset(rawValue: range) != nil else { throw ValidationError("--range is all-time, last-year or last-5-years") }
        guard let collageLayout = CollageLayout(rawValue: layout) else { throw ValidationError("--layout is grid2x3 or dynamic") }
        if collageLayout == .grid2x3 && count > 6 { throw ValidationError("the grid2x3 layout holds 6 photos; use --layout dynamic for up to 10") }
        if near != nil, coordinates == nil { throw ValidationError("--near is LAT,LON in degrees, for example 45.76,4.84") }
        guard minFaceShare > 0 && minFaceShare <= 1 else { throw ValidationError("--min-face-share is a fraction of the photo above 0 and at most 1 (0.15 is 15%)") }
        if let title, title.trimmingCharacters(in: .whitespaces).isEmpty || title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw ValidationError("--title is one line of text")
        }
        guard CollageFileFormat(path: out) != nil else {
            throw ValidationError("--out \(TerminalText.escaped(out)): the name must end in \(CollageFileFormat.acceptedExtensions) (the extension chooses the format)")
        }
    }

    /// `--near` as latitude and longitude, when it is two numbers in range.
    private var coordinates: (latitude: Double, longitude: Double)? {
        guard let parts = near?.split(separator: ",").compactMap({ Double($0.trimmingCharacters(in: .whitespaces)) }),
              parts.count == 2, (-90...90).contains(parts[0]), (-180...180).contains(parts[1]) else { return nil }
        return (parts[0], parts[1])
    }

    /// `--place`: a saved place's circle, else a match on the photos' place names.
    func placeSource(_ name: String) throws -> CollageSource {
        let path = placesDb ?? CaptionDatabase.defaultPath
        guard FileManager.default.fileExists(atPath: path) else { return .place(name) }  // no places saved on this device
        let (source, saved) = try SavedPlaces(database: CaptionDatabase(path: path)).collageSource(place: name)
        if let saved, !output.quiet {
            StandardError.write("note: \(TerminalText.escaped(saved.name)) is a saved place: photos within \(Int(saved.radiusMeters)) m of "
                                + String(format: "%.5f, %.5f", saved.latitude, saved.longitude) + "\n")
        }
        return source
    }

    func run() async throws {
        let source: CollageSource
        if let year { source = .year(year) } else if let place { source = try placeSource(place) } else if let person { source = .person(person) } else if let theme {
            source = .theme(theme)
        } else {
            guard let coordinates else { throw ValidationError("--near is LAT,LON in degrees, for example 45.76,4.84") }
            source = .area(latitude: coordinates.latitude, longitude: coordinates.longitude, radiusKilometres: radius)
        }
        let request = CollageRequest(source: source, range: DateRangePreset(rawValue: range) ?? .allTime, count: count, seed: seed,
                                     minimumFaceShare: minFaceShare)
        // A collage only reads the index: before `memora index` there is none, and none is created.
        let index = try PhotoIndexDatabase(path: database.db ?? PhotoIndexDatabase.defaultPath, creatingIfMissing: false)
        let job = CollageJob(database: index, request: request, layout: CollageLayout(rawValue: layout) ?? .grid2x3,
                             scale: scale, title: title.map { CollageTitle($0) })
        let selection: CollageSelection
        if output.dryRun {
            selection = try job.check(writingTo: out).selection
            if !output.quiet { for note in selection.notes { StandardError.write("note: \(note)\n") } }
            if json { try printJSON(selection); return }
            output.say("\(out): would hold \(selection.photos.count) photos (seed \(seed)); nothing written")
        } else {
            let result = try await job.run(writingTo: out)
            selection = result.selection
            let rendered = result.collage
            if !output.quiet { for note in selection.notes { StandardError.write("note: \(note)\n") } }
            if json { try printJSON(selection); return }
            output.say("\(out): \(rendered.image.width)x\(rendered.image.height), \(rendered.cells.count) photos (seed \(seed); --seed \(seed &+ 1) shuffles)")
            for failure in rendered.failed { StandardError.write("could not load \(failure.path): \(failure.reason)\n") }
        }
        if explain && !output.quiet {
            for photo in selection.photos { print("  chosen \(photo.path): \(photo.reason); \(CollageCommand.cropReason(photo.faces))") }
            for photo in selection.extras { print("  backup \(photo.path)") }
            for photo in selection.rejected.prefix(20) { print("  not chosen \(photo.path): \(photo.reason)") }
            if let summary = selection.summary {
                print("  in all: \(summary.explanation)")
                for group in summary.rejectedGroups { print("    \(group.count) \(group.reason)") }
                if let advice = summary.faceShareAdvice, !selection.notes.contains(advice) { print("  \(advice)") }
            }
        }
    }

    /// What decided a photo's crop: the faces it is centred on, and where each came from.
    static func cropReason(_ faces: [FaceBox]) -> String {
        let usable = faces.filter { $0.width > 0 && $0.height > 0 }
        guard !usable.isEmpty else { return "centre crop (no face)" }
        return "cropped around " + usable.map { face in
            (face.name ?? "a face") + (face.isDetected ? " (found in the pixels)" : " (a region in its metadata)")
        }.joined(separator: ", ")
    }
}
