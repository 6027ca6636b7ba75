import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport


private func contents(_ path: String) throws -> [UInt8] {
    try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Whether `needle` occurs anywhere in `haystack`.
private func occurs(_ needle: String, in haystack: [UInt8]) -> Bool {
    let bytes = Array(needle.utf8)
    guard bytes.count <= haystack.count else { return false }
    return (0...(haystack.count - bytes.count)).contains { haystack[$0..<($0 + bytes.count)].elementsEqual(bytes) }
}

/// A real HEIC or AVIF from libheif's encoder (x265 or aom).
private func encodedPhoto(_ codec: HEIFEncodingOptions.Codec, in folder: String) throws -> String {
    try #require(ImageEncoder.canEncodeHEIF(codec), "libheif on this machine cannot encode \(codec); install libheif-dev with its x265 and aom plugins")
    let path = folder + (codec == .hevc ? "/IMG_0001.heic" : "/IMG_0001.avif")
    try ImageEncoder.write(try SyntheticPhoto.landscape(width: 96, height: 64), to: path, as: .heif(.init(codec: codec)))
    return path
}

/// Box layouts seen in cameras and tools.
let heifLayouts: [(String, @Sendable (inout HEIFBuilder) -> Void)] = [
    ("iloc v1, extent offsets (Apple)", { _ in }),
    ("iloc v0, base offsets (libheif, GIMP)", { $0.ilocVersion = 0; $0.positionsInBase = true }),
    ("iloc v1, base offsets (libheif)", { $0.positionsInBase = true }),
    ("iloc v2, 32-bit ids", { $0.ilocVersion = 2 }),
    ("a free box after meta (Sony)", { $0.freeAfterMeta = 256 }),
    // Adding the XMP item grows `meta` by 75 bytes: its `infe` (41), `iloc` entry (20) and `cdsc` reference (14).
    ("a free box exactly as large as the growth", { $0.freeAfterMeta = 75 }),
    ("a free box too small for the growth", { $0.freeAfterMeta = 16 }),
    ("mdat before meta", { $0.mdatBeforeMeta = true }),
    ("the last mdat has no size", { $0.openEndedMdat = true }),
    ("EXIF in idat (construction method 1)", { $0.items[1].method = 1 }),
    ("EXIF and XMP items already there", { $0 = HEIFBuilder.photo(withXMP: true) }),
]

@Suite("HEIC and AVIF written in place", .tags(.exiftool))
struct HEIFWriteTests {
    @Test("a libheif HEIC or AVIF gets the caption and alt text in XMP and EXIF items that exiftool reads; pixels unchanged; restore is exact",
          arguments: [HEIFEncodingOptions.Codec.hevc, .av1])
    func encodedRoundTrip(codec: HEIFEncodingOptions.Codec) throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try encodedPhoto(codec, in: folder)
        let original = try contents(path)
        let pixels = try ImageDecoder.decode(original)
        let caption = "Zoë’s café — 東京 🌸\nA second line"
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: caption, altText: "A café in Tokyo"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == caption)
        #expect(try exiftoolValue("IFD0:ImageDescription", path) == caption)
        #expect(try exiftoolValue("XMP-iptcCore:AltTextAccessibility", path) == "A café in Tokyo")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty, "exiftool has no warning about the file")
        let reading = try MetadataReader.read(contentsOf: path)
        #expect(reading.captions.caption == caption && reading.captions.source == .xmp)
        #expect(reading.captions.exif == caption && reading.captions.altText == "A café in Tokyo")
        #expect(try ImageDecoder.decode(contentsOf: path) == pixels, "libheif decodes the same pixels")
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try contents(path) == original)
    }

    @Test("what exiftool wrote into a HEIC is read and kept; the old caption leaves the file; repeated writes do not grow it")
    func exiftoolWritten() throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try encodedPhoto(.hevc, in: folder)
        try exiftool(["-q", "-overwrite_original", "-XMP-dc:Description=Old harbour caption", "-XMP-dc:Description-de=Der Hafen",
                      "-XMP-dc:Subject=harbour", "-EXIF:ImageDescription=Old harbour caption", "-EXIF:Make=Memora",
                      "-GPSLatitude=48.85", "-GPSLatitudeRef=N", "-GPSLongitude=2.35", "-GPSLongitudeRef=E", path])
        let before = try MetadataReader.read(contentsOf: path)
        #expect(before.captions.caption == "Old harbour caption" && before.make == "Memora")
        #expect(abs((before.gps?.latitude ?? 0) - 48.85) < 0.0001)
        let pixels = try ImageDecoder.decode(contentsOf: path)

        try CaptionWriter.write(CaptionUpdate(caption: "Boats in the harbour at dusk"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Boats in the harbour at dusk")
        #expect(try exiftoolValue("IFD0:ImageDescription", path) == "Boats in the harbour at dusk")
        #expect(try exiftoolValue("XMP-dc:Description-de", path) == "Der Hafen")
        #expect(try exiftoolValue("XMP-dc:Subject", path) == "harbour")
        #expect(try exiftoolValue("IFD0:Make", path) == "Memora")
        #expect(try exiftool(["-s3", "-n", "-GPSLatitude", path]).hasPrefix("48.85"))
        #expect(!occurs("Old harbour caption", in: try contents(path)), "the replaced caption is not left behind in the file")
        #expect(try ImageDecoder.decode(contentsOf: path) == pixels)

        // Longer, shorter, longer again: the space of earlier writes is reused.
        let long = String(repeating: "Ünïcødé 🐕 ", count: 182)
        var sizes: [Int] = []
        for caption in [long, "Short", long, "Short", long] {
            try CaptionWriter.write(CaptionUpdate(caption: caption), to: path)
            #expect(try exiftoolValue("XMP-dc:Description", path) == caption)
            sizes.append(try contents(path).count)
        }
        #expect(sizes[2] == sizes[4], "writing the same caption again does not grow the file (sizes \(sizes))")
        #expect(try ImageDecoder.decode(contentsOf: path) == pixels)
    }

    @Test("strip-location removes GPS from a HEIC's EXIF and XMP and keeps everything else")
    func stripLocation() throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try encodedPhoto(.hevc, in: folder)
        try exiftool(["-q", "-overwrite_original", "-EXIF:Make=Memora", "-XMP-dc:Description=At home",
                      "-GPSLatitude=51.5", "-GPSLatitudeRef=N", "-GPSLongitude=0.12", "-GPSLongitudeRef=W",
                      "-XMP-exif:GPSLatitude=51.5 N", "-XMP-photoshop:City=London", path])
        #expect(try MetadataReader.read(contentsOf: path).gps != nil)
        // In memory first (what `memora vault add --strip-location` does): the file is not touched.
        let original = try contents(path)
        let stripped = try CaptionWriter.strippingLocation(from: original, source: "IMG_0001.heic")
        #expect(try MetadataReader.read(stripped).gps == nil && MetadataReader.read(stripped).make == "Memora")
        #expect(try contents(path) == original)
        try CaptionWriter.stripLocation(from: path)
        #expect(try exiftool(["-s3", "-GPS:all", "-XMP-exif:GPSLatitude", "-XMP-photoshop:City", path]).isEmpty)
        #expect(try exiftoolValue("IFD0:Make", path) == "Memora")
        #expect(try exiftoolValue("XMP-dc:Description", path) == "At home")
        #expect(try MetadataReader.read(contentsOf: path).gps == nil)
        #expect(!occurs("London", in: try contents(path)), "the old XMP with the city is not left behind")
    }

    @Test("every layout: the caption is added, exiftool reads it, image items and properties stay byte for byte",
          arguments: 0..<heifLayouts.count)
    func layouts(index: Int) throws {
        let (name, configure) = heifLayouts[index]
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var builder = HEIFBuilder.photo()
        configure(&builder)
        let path = folder + "/layout.heic"
        let original = builder.build()
        try Data(original).write(to: URL(fileURLWithPath: path))
        let before = try HEIFFile(original, source: name)
        let warnings = try exiftool(["-warning", "-s3", path])
        #expect(try MetadataReader.read(contentsOf: path).captions.caption == "Old caption", "\(name): the fixture reads")

        for caption in ["A much longer caption than the old one, so the EXIF item must move", "Short", "Short"] {
            try CaptionWriter.write(CaptionUpdate(caption: caption), to: path)
            let bytes = try contents(path)
            let after = try HEIFFile(bytes, source: name)
            #expect(try after.data(ofItem: 1) == before.data(ofItem: 1), "\(name): the image item is unchanged")
            #expect(HEIFFile.differences(before: before, after: after, metadataItems: [2, 3]).isEmpty, "\(name)")
            let reading = try MetadataReader.read(bytes, source: name).captions
            #expect(reading.xmp == caption && reading.exif == caption, "\(name): \(reading)")
            #expect(try exiftoolValue("XMP-dc:Description", path) == caption, "\(name)")
            #expect(try exiftoolValue("IFD0:ImageDescription", path) == caption, "\(name)")
            let newWarnings = Set(try exiftool(["-warning", "-s3", path]).split(separator: "\n")).subtracting(warnings.split(separator: "\n"))
            #expect(newWarnings.isEmpty, "\(name): no new exiftool warning")
            if (builder.freeAfterMeta ?? 0) >= 75 || builder.mdatBeforeMeta {
                let image = before.locations.entries.first { $0.itemID == 1 }!
                #expect(try after.ranges(of: after.locations.entries.first { $0.itemID == 1 }!) == before.ranges(of: image),
                        "\(name): the image data did not move")
            }
        }
        #expect(!occurs("Old caption", in: try contents(path)), "\(name): the old caption is gone from the file")
        if builder.items.count == 3 {
            #expect(try exiftoolValue("XMP-dc:Description-fr", path) == "Légende", "\(name): other languages are kept")
            #expect(try exiftoolValue("XMP-xmp:Rating", path) == "3")
        }
        let sizeAfterTwoShortWrites = try contents(path).count
        try CaptionWriter.write(CaptionUpdate(caption: "Short"), to: path)
        #expect(try contents(path).count == sizeAfterTwoShortWrites, "\(name): the same caption again does not grow the file")
    }

    @Test("layouts MetadataKit does not rewrite are refused with a reason, and the file stays byte for byte", arguments: [
        "construction method 2", "data in another file", "two EXIF items", "a movie box behind the data", "truncated", "no meta box",
    ])
    func refusals(layout: String) throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var builder = HEIFBuilder.photo()
        var bytes: [UInt8]
        switch layout {
        case "construction method 2": builder.items[1].method = 2
        case "data in another file": builder.items[1].dataReference = 1
        case "two EXIF items":
            builder.items.append(.init(id: 3, type: "Exif", data: HEIFBuilder.exifItemData(caption: "Second")))
            builder.references.append(("cdsc", 3, [1]))
        case "a movie box behind the data": builder.trailingBoxes = [builder.box("moov", builder.box("mvhd", [UInt8](repeating: 0, count: 100)))]
        default: break
        }
        bytes = builder.build()
        if layout == "truncated" { bytes = Array(bytes.prefix(200)) }
        if layout == "no meta box" { bytes = Array(bytes.prefix(20)) + builder.box("mdat", [1, 2, 3]) }
        let path = folder + "/refused.heic"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            try CaptionWriter.write(CaptionUpdate(caption: "Never written"), to: path)
            Issue.record("\(layout): the write was not refused")
        } catch {
            #expect(error.description.contains("refused.heic") && error.description.contains("not changed"), "\(layout): \(error)")
        }
        #expect(try contents(path) == bytes, "\(layout): the file is untouched")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(leftovers == ["refused.heic"], "\(layout): no temporary file is left")
    }

    @Test("2,000 randomly corrupted HEIC files go through read and write without a crash; a refused write leaves the file as it was")
    func mutations() throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let original = HEIFBuilder.photo(withXMP: true).build()
        let metaEnd = try HEIFFile(original, source: "fixture").meta.end
        var generator = MutationRandom(seed: 99)
        func random(_ bound: Int) -> Int { generator.next(below: bound) }
        let target = folder + "/mutant.heic"
        var written = 0
        var refused = 0
        for round in 0..<2000 {
            var bytes = original
            if round % 10 == 0 {
                bytes.removeLast(random(bytes.count - 1))  // truncated anywhere
            } else {
                for _ in 0..<(1 + random(4)) { bytes[random(metaEnd)] = UInt8(random(256)) }
            }
            if try writeMutant(bytes, to: target) {
                written += 1
                #expect(try MetadataReader.read(contentsOf: target).captions.xmp == "Mutated")
            } else {
                refused += 1
            }
        }
        #expect(written > 0 && refused > 0, "written \(written), refused \(refused)")
    }
}
