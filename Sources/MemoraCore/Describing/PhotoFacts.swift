import Foundation
internal import ImageKit
internal import MemoraSystem
public import MetadataKit
public import PhotoIndex
public import PhotoVisionCore

/// What Memora knows of a photo without a language model: what it measures in the pixels with its
/// on-device models (faces, the main subject, the text), and what the photo's own metadata says
/// (names, place, date). The on-device description is composed from these and nothing else
/// (``DescriptionComposer``), so every word of it can be traced to one of them.
public struct PhotoFacts: Sendable, Hashable, Codable {
    /// People named in the photo's metadata (`PersonInImage`, named face regions), then those a person
    /// named in the photo index whose faces are in it (`memora people name`); never guessed.
    public var names: [String]
    /// Faces found in the pixels, or marked in the metadata when no detector ran (whichever is more).
    public var faceCount: Int
    /// The main subject the scene model names, when it is sure enough (PhotoVision's `SceneNouns`).
    public var subject: SceneSubject?
    /// Text read in the pixels, in reading order (a line seen but not read is not kept: it counts only for ``kind``).
    public var text: [TextLine]
    /// Where it was taken as the scene model sees it ("by the sea", "in a bookshop"), when it is sure enough (PhotoVisionCore's `ScenePlaces`).
    public var setting: String?
    /// The place the metadata names ("Porto, Portugal").
    public var place: String?
    /// The month and year it was taken ("July 2019"), in its own time zone.
    public var monthAndYear: String?
    /// True when the photo is dark overall.
    public var isDark: Bool
    /// Its main colours in everyday words, most first.
    public var colors: [String]
    /// The kind of picture, when its pixels and its text show one (a page, handwriting, black and
    /// white) or its metadata or file name says it is a screenshot.
    public var kind: PictureKind?
    /// How much fine detail the picture holds (``PictureDetail``); below ``PictureDetail/minimumForScene``
    /// the scene model's subject and setting are not said. Nil when it was not measured.
    public var detail: Double?
    /// Which on-device models ran (for the history: "faces", "scene", "text").
    public var modelsUsed: [String]

    /// Facts.
    public init(names: [String] = [], faceCount: Int = 0, subject: SceneSubject? = nil, text: [TextLine] = [], place: String? = nil,
                monthAndYear: String? = nil, isDark: Bool = false, colors: [String] = [], kind: PictureKind? = nil, modelsUsed: [String] = []) {
        self.names = names
        self.faceCount = faceCount
        self.subject = subject
        self.text = text
        self.place = place
        self.monthAndYear = monthAndYear
        self.isDark = isDark
        self.colors = colors
        self.kind = kind
        self.modelsUsed = modelsUsed
    }

    /// The side of the thumbnail colours and light are measured on.
    static let sampleSize = 64

    /// The facts of the photo at `path`: its metadata (`metadata` when the caller read it already),
    /// a small thumbnail for light and colours, what `vision` sees (nil: metadata and colours only),
    /// and the names a person confirmed for its faces in `index` (never a name the clustering guessed).
    public static func gather(path: String, metadata: PhotoMetadata?, vision: IndexVision?, index: PhotoIndexDatabase? = nil) throws(MemoraError) -> PhotoFacts {
        try look(path: path, metadata: metadata, vision: vision, index: index).facts
    }

    /// The photo at `path` described on the device (`memora image look`): what `vision` saw, the
    /// facts, and the caption, alt text and extended description ``DescriptionComposer`` makes of them.
    public static func describe(path: String, vision: IndexVision?, index: PhotoIndexDatabase? = nil) throws(MemoraError) -> DescribedPhoto {
        let (facts, sight) = try look(path: path, metadata: nil, vision: vision, index: index)
        let (caption, altText, extended) = DescriptionComposer.compose(facts)
        return DescribedPhoto(path: path, sight: sight, facts: facts, caption: caption, altText: altText, extendedDescription: extended)
    }

    private static func look(path: String, metadata: PhotoMetadata?, vision: IndexVision?, index: PhotoIndexDatabase?) throws(MemoraError) -> (facts: PhotoFacts, sight: PhotoSight?) {
        let thumbnail: Image, detail: Double
        do {
            // One decode: detail on the larger thumbnail, light and colours on the small one.
            let larger = try ImageDecoder.thumbnail(contentsOf: path, maxPixelSize: PictureDetail.sampleSize, options: DecodingOptions(applyOrientation: true))
            detail = PictureDetail.measure(larger)
            thumbnail = try larger.resized(fittingLongSide: sampleSize)
        } catch {
            throw .imageUnreadable(path: path, reason: error.reason)
        }
        let metadata = metadata ?? (try? MetadataReader.read(contentsOf: path))
        var facts = PhotoFacts(isDark: ColorNames.brightness(of: thumbnail) < 0.22, colors: ColorNames.dominant(in: thumbnail))
        facts.detail = detail
        let (paperShare, colouredShare) = ColorNames.paperAndColour(in: thumbnail)
        if let metadata {
            facts.names = metadata.people.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
            facts.faceCount = metadata.regions.filter { ($0.type ?? "Face").caseInsensitiveCompare("Face") == .orderedSame }.count
            facts.place = metadata.place.map(\.displayName).flatMap { $0.isEmpty ? nil : $0 }
            facts.monthAndYear = metadata.dateTaken.flatMap(Self.monthAndYear)
        }
        // Names a person confirmed in the index for the photo's faces, after the metadata's own.
        for name in (try? index?.confirmedNames(inPhoto: path)) ?? [] where !facts.names.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
            facts.names.append(name)
        }
        var seen: PhotoSight?
        if let vision {
            let sight: PhotoSight
            do { sight = try vision.look(atPhotoAt: path, metadata: metadata) } catch { throw .imageUnreadable(path: path, reason: "\(error)") }
            seen = sight
            if vision.faces != nil {
                facts.faceCount = max(facts.faceCount, sight.faces.filter(\.isDetected).count)
                facts.modelsUsed.append("faces")
            }
            if let scene = sight.scene {
                // What the scene model names is not said of a picture without a photo's fine detail (PictureDetail).
                if detail >= PictureDetail.minimumForScene {
                    facts.subject = scene.subject
                    facts.setting = ScenePlaces.place(of: scene.labels.map { ($0.classIndex, $0.probability) }, subject: scene.subject)?.phrase
                }
                facts.modelsUsed.append("scene")
            }
            if let text = sight.text {
                facts.text = text
                facts.modelsUsed.append("text")
            }
        }
        // Faint lines come only when no line was read, and are never legible: judging only the read
        // lines gives the same count, and a photo where nothing was read does not load the word lists.
        let legible = DescriptionComposer.judge(facts.text.filter { !$0.text.isEmpty }, with: nil).legible.count
        let isScreenshot = PictureKind.isScreenshot(userComment: metadata?.userComment, fileName: SystemPath.fileName(of: path))
        facts.kind = PictureKind.recognise(paperShare: paperShare, colouredShare: colouredShare, lines: facts.text, legible: legible,
                                           isScreenshot: isScreenshot)
        // Lines the reader saw only faintly and did not read show a page's layout, and nothing more:
        // the facts keep what was read (the sight keeps them all).
        facts.text.removeAll { $0.text.isEmpty }
        return (facts, seen)
    }

    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    /// "July 2019", in the photo's own time zone.
    static func monthAndYear(_ taken: CaptureDate) -> String? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: taken.utcOffsetSeconds ?? 0) ?? TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month], from: taken.date)
        guard let year = parts.year, let month = parts.month, (1...12).contains(month) else { return nil }
        return "\(months[month - 1]) \(year)"
    }
}

/// A photo described on the device: what the models saw, the facts taken from it and the metadata,
/// and the texts composed from the facts.
public struct DescribedPhoto: Sendable, Hashable, Codable {
    /// The photo's path.
    public var path: String
    /// What the vision models saw (nil when none ran).
    public var sight: PhotoSight?
    /// The facts the description is made from.
    public var facts: PhotoFacts
    /// The caption.
    public var caption: String
    /// The alt text.
    public var altText: String
    /// What the alt text leaves out, when there is more.
    public var extendedDescription: String?
}
