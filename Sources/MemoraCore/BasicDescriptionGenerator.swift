import Foundation
import ImageKit
import MetadataKit

/// An honest, factual description from what Memora can measure and read: who is in the photo
/// (names from `PersonInImage` and named face regions, else a count of faces), when (month and
/// year) and where (the place's name), how dark it is and its main colours in the words a person
/// would use. It never leaves the device, always works offline, says in ``modelInfo`` that it is
/// not a model, and is used only when the user allowed it (``CaptionConfiguration/Fallback/basic``);
/// the photo is then marked as holding a basic description (MetadataKit's `CaptionUpdate.isBasicDescription`).
///
/// Example: "A photo of Ana and Ben, taken in July 2019 in Lyon, France; mostly red and tan."
/// with the alt text "Ana and Ben in Lyon, France." (who and where, not a copy of the caption).
public struct BasicDescriptionGenerator: CaptionGenerator {
    /// The side of the thumbnail the measurements are made on.
    static let sampleSize = 64
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    /// Creates the generator.
    public init() {}

    public var modelInfo: ModelInfo {
        ModelInfo(provider: .basicDescription, name: "basic-description", version: "2", pixelsLeaveDevice: false,
                  displayName: "Basic description (measured by Memora, not an AI model)")
    }

    /// The identifier recorded in the queue and the history for a basic description.
    public static let identifier = BasicDescriptionGenerator().modelInfo.identifier

    public func availability() async -> GeneratorAvailability { .available }

    public func generateCaption(for request: CaptionRequest) async throws(MemoraError) -> GeneratedCaption {
        let image: Image
        do {
            image = try ImageDecoder.thumbnail(contentsOf: request.path, maxPixelSize: Self.sampleSize, options: DecodingOptions(applyOrientation: true))
        } catch {
            throw .imageUnreadable(path: request.path, reason: error.reason)
        }
        let metadata = request.metadata ?? (try? MetadataReader.read(contentsOf: request.path))
        let (description, altText) = Self.describe(image: image, metadata: metadata)
        return GeneratedCaption(description: description, altText: altText, model: modelInfo, rawText: description)
    }

    /// The caption and the alt text for an upright thumbnail and the photo's metadata.
    static func describe(image: Image, metadata: PhotoMetadata?) -> (caption: String, altText: String) {
        let subject = metadata.flatMap(people(in:))
        let when = metadata?.dateTaken.flatMap(monthAndYear)
        let place = metadata?.place.map(\.displayName).flatMap { $0.isEmpty ? nil : $0 }
        let dark = ColorNames.brightness(of: image) < 0.22
        let colors = ColorNames.dominant(in: image)
        let colorWords: String? = switch colors.count {
        case 0: nil
        case 1: "mostly \(colors[0])"
        default: "mostly \(colors[0]) and \(colors[1])"
        }

        var caption = dark ? "A dark photo" : "A photo"
        if let subject { caption += " of \(subject)" }
        if when != nil || place != nil { caption += ", taken" }
        if let when { caption += " in \(when)" }
        if let place { caption += " in \(place)" }
        if let colorWords { caption += "; \(colorWords)" }
        caption += "."

        // Who and where: what a screen reader's user needs first, and not a copy of the caption.
        var altText: String
        if let subject {
            altText = subject.prefix(1).uppercased() + subject.dropFirst() + (place.map { " in \($0)" } ?? "")
        } else if let place {
            altText = "Photo taken in \(place)"
        } else {
            altText = (dark ? "Dark photo" : "Photo") + (colorWords.map { ", \($0)" } ?? "")
        }
        altText += "."
        if altText == caption { altText = String(caption.dropFirst(2)) }
        return (caption, altText)
    }

    /// "Ana", "Ana and Ben", "Ana, Ben and Carl", "Ana and 2 other people", "3 people", "one person".
    static func people(in metadata: PhotoMetadata) -> String? {
        let faces = metadata.regions.filter { ($0.type ?? "Face").caseInsensitiveCompare("Face") == .orderedSame }.count
        let names = metadata.people.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        let others = max(0, faces - names.count)
        var parts = Array(names.prefix(3))
        let unnamed = others + max(0, names.count - 3)
        if unnamed > 0 {
            parts.append(parts.isEmpty ? (unnamed == 1 ? "one person" : "\(unnamed) people")
                                       : (unnamed == 1 ? "one other person" : "\(unnamed) other people"))
        }
        switch parts.count {
        case 0: return nil
        case 1: return parts[0]
        default: return parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
        }
    }

    /// "July 2019", in the photo's own time zone.
    static func monthAndYear(_ taken: CaptureDate) -> String? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: taken.utcOffsetSeconds ?? 0) ?? TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month], from: taken.date)
        guard let year = parts.year, let month = parts.month, (1...12).contains(month) else { return nil }
        return "\(months[month - 1]) \(year)"
    }
}
