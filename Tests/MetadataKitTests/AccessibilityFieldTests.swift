import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

/// IPTC's Extended Description (Accessibility) and Memora's caption source, written beside the
/// caption and the alt text in every format written in place and in sidecars, read back by
/// exiftool, verified, and undone by the snapshot (issue 30).
@Suite("Extended description and caption source", .tags(.exiftool))
struct AccessibilityFieldTests {
    static let extended = "Ana and two other people by the sea. Text in the photo reads \"Praia da Luz\", \"Gelados\" and \"Aberto\". Mostly blue and tan."
    static let source = "Written automatically by the model ollama:llava on 2026-11-27T10:00:00Z"

    /// A real file of each format Memora writes in place, from the real encoders.
    static func photo(_ format: String, in folder: String) throws -> String {
        let path = folder + "/photo." + format
        let image = try SyntheticPhoto.landscape(width: 96, height: 64, seed: 5)
        switch format {
        case "jpg": try ImageEncoder.write(image, to: path, as: .jpeg())
        case "png": try ImageEncoder.write(image, to: path, as: .png())
        case "webp": try ImageEncoder.write(image, to: path, as: .webp())
        case "tif": try Data(makeTIFF()).write(to: URL(fileURLWithPath: path))
        case "heic":
            try #require(ImageEncoder.canEncodeHEIF(.hevc), "libheif cannot encode HEVC here")
            try ImageEncoder.write(image, to: path, as: .heif(.init(codec: .hevc)))
        default: Issue.record("no fixture for \(format)")
        }
        return path
    }

    @Test("written, read by exiftool and by us, verified, and restored byte for byte", arguments: ["jpg", "png", "webp", "tif", "heic"])
    func everyFormat(format: String) throws {
        let folder = try temporaryFolder("accessibility-fields")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.photo(format, in: folder)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Ana and two other people by the sea.", altText: "Ana and two other people by the sea.",
                                                             extendedDescription: Self.extended, source: Self.source), to: path)
        #expect(try exiftoolValue("XMP-iptcCore:ExtDescrAccessibility", path) == Self.extended)
        #expect(try exiftoolValue("XMP:CaptionSource", path) == Self.source)
        let reading = try MetadataReader.read(contentsOf: path).captions
        #expect(reading.extendedDescription == Self.extended && reading.captionSource == Self.source)
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty)

        // A later caption without a source or an extended description takes the old ones away
        // (they described another caption).
        let second = try CaptionWriter.write(CaptionUpdate(caption: "A person wrote this."), to: path)
        let later = try MetadataReader.read(contentsOf: path).captions
        #expect(later.captionSource == nil && later.extendedDescription == nil)
        #expect(try exiftool(["-s3", "-XMP-iptcCore:ExtDescrAccessibility", path]).isEmpty)

        try CaptionWriter.restore(second, to: path)
        #expect(try MetadataReader.read(contentsOf: path).captions.captionSource == Self.source)
        #expect(try MetadataReader.read(contentsOf: path).captions.extendedDescription == Self.extended)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test("in an XMP sidecar too")
    func sidecar() throws {
        let folder = try temporaryFolder("accessibility-sidecar")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.photo("jpg", in: folder)
        let sidecar = try CaptionWriter.writeSidecar(CaptionUpdate(caption: "A dog.", altText: "A dog.", extendedDescription: Self.extended, source: Self.source), for: path)
        let reading = try MetadataReader.read(contentsOf: sidecar).captions
        #expect(reading.extendedDescription == Self.extended && reading.captionSource == Self.source)
    }
}
