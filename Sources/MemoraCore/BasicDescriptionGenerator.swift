import Foundation
import ImageKit
import MetadataKit

/// An honest, factual sentence from what Memora can measure: the photo's shape,
/// brightness, dominant colours by name, the number of people (face regions or
/// `PersonInImage`), and the date and place from its metadata. It never leaves the
/// device, always works offline, and says in ``modelInfo`` that it is not a model.
/// The model selector uses it only as the last resort.
///
/// Example: "A dark, wide photo in mostly blue and grey tones, with 2 people, taken in July 2019 in Lyon, France."
public struct BasicDescriptionGenerator: CaptionGenerator {
    /// The side of the thumbnail the measurements are made on.
    static let sampleSize = 64
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    /// Creates the generator.
    public init() {}

    public var modelInfo: ModelInfo {
        ModelInfo(provider: .basicDescription, name: "basic-description", version: "1", pixelsLeaveDevice: false,
                  displayName: "Basic description (measured by Memora, not an AI model)")
    }

    public func availability() async -> GeneratorAvailability { .available }

    public func generateCaption(for request: CaptionRequest) async throws(MemoraError) -> GeneratedCaption {
        let image: Image
        do {
            image = try ImageDecoder.thumbnail(contentsOf: request.path, maxPixelSize: Self.sampleSize, options: DecodingOptions(applyOrientation: true))
        } catch {
            throw .imageUnreadable(path: request.path, reason: error.reason)
        }
        let metadata = request.metadata ?? (try? MetadataReader.read(contentsOf: request.path))
        let text = Self.describe(image: image, metadata: metadata)
        return try ProviderReply.caption(from: text, model: modelInfo)
    }

    /// The sentence for an upright thumbnail and the photo's metadata.
    static func describe(image: Image, metadata: PhotoMetadata?) -> String {
        let ratio = Double(image.width) / Double(max(1, image.height))
        let shape = ratio > 1.15 ? "wide" : ratio < 0.87 ? "tall" : "square"
        let brightness = ColorNames.brightness(of: image)
        let tone = brightness < 0.25 ? "dark, " : brightness > 0.72 ? "bright, " : ""
        var sentence = "A \(tone)\(shape) photo"
        let colors = ColorNames.dominant(in: image)
        switch colors.count {
        case 0: sentence += " in mixed colours"
        case 1: sentence += " in mostly \(colors[0]) tones"
        default: sentence += " in mostly \(colors[0]) and \(colors[1]) tones"
        }
        if let metadata {
            let faces = metadata.regions.filter { ($0.type ?? "Face").caseInsensitiveCompare("Face") == .orderedSame }.count
            let people = max(faces, metadata.people.count)
            if people == 1 { sentence += ", with one person" } else if people > 1 { sentence += ", with \(people) people" }
            if let taken = metadata.dateTaken {
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(secondsFromGMT: taken.utcOffsetSeconds ?? 0) ?? TimeZone(identifier: "UTC")!
                let parts = calendar.dateComponents([.year, .month], from: taken.date)
                if let year = parts.year, let month = parts.month, (1...12).contains(month) {
                    sentence += ", taken in \(months[month - 1]) \(year)"
                }
            }
            if let place = metadata.place?.displayName, !place.isEmpty {
                sentence += (metadata.dateTaken == nil ? ", taken in " : " in ") + place
            }
        }
        return sentence + "."
    }
}
