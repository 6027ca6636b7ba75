import Foundation
import ImageKit
import Testing
@testable import MetadataKit

/// Serialises exiftool runs: Foundation's `Process` on Linux can hand a pipe to a child
/// spawned concurrently by another test, which garbles or loses output.
let exiftoolLock = NSLock()

/// Runs exiftool (Debian's libimage-exiftool-perl) and returns its standard output,
/// collected through a temporary file rather than a pipe.
@discardableResult
func exiftool(_ arguments: [String]) throws -> String {
    try exiftoolLock.withLock {
        let outputPath = NSTemporaryDirectory() + "exiftool-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try output.close()
        return String(decoding: try Data(contentsOf: URL(fileURLWithPath: outputPath)), as: UTF8.self)
    }
}

/// The value of one tag as exiftool reads it (`-b`: raw, no conversion), e.g. "IPTC:Caption-Abstract".
func exiftoolValue(_ tag: String, _ path: String) throws -> String {
    try exiftool(["-b", "-charset", "iptc=utf8", "-" + tag, path])
}

/// A small seeded generator (PCG-style LCG) so mutation tests corrupt the same bytes on every run.
struct MutationRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// A number in `0..<bound`.
    mutating func next(below bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}

/// One mutation round: `bytes` go through read and the fast scan in memory (no crash is all
/// that is asked), then a caption write into `target`; a refused write must leave the file
/// byte for byte as it was. Returns whether the write went through.
@discardableResult
func writeMutant(_ bytes: [UInt8], to target: String) throws -> Bool {
    _ = try? MetadataReader.read(bytes, source: "mutant")
    _ = try? MetadataReader.scan(bytes, source: "mutant")  // libexif on damaged EXIF too
    try Data(bytes).write(to: URL(fileURLWithPath: target))
    do {
        try CaptionWriter.write(CaptionUpdate(caption: "Mutated"), to: target)
        return true
    } catch {
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: target))) == bytes)
        return false
    }
}

/// A new, empty folder inside `base` (the temporary folder by default); the caller removes it.
func makeTemporaryFolder(in base: String = NSTemporaryDirectory()) throws -> String {
    let folder = base + (base.hasSuffix("/") ? "" : "/") + "metadatakit-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}

/// A real JPEG from the real encoder, in a fresh folder.
func makeJPEG(_ name: String = "photo.jpg", seed: UInt64 = 1) throws -> String {
    let folder = try makeTemporaryFolder()
    let path = folder + "/" + name
    try ImageEncoder.write(try SyntheticPhoto.landscape(width: 320, height: 240, seed: seed), to: path, as: .jpeg())
    return path
}

@Suite("Captions written by us, read by exiftool")
struct CaptionWriteTests {
    static let captions = [
        "Zoë’s café — 東京 🌸",
        "A dog runs on the beach.\nThe sea is calm.",
        String(repeating: "Ünïcødé 🐕 ", count: 182),  // about 2,000 characters
    ]

    @Test("the caption lands in XMP, EXIF and IPTC exactly, and the pixels do not change", arguments: captions)
    func roundTrip(caption: String) throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let pixelsBefore = try ImageDecoder.decode(contentsOf: path)
        try CaptionWriter.write(CaptionUpdate(caption: caption, altText: "A short alt text"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == caption)
        #expect(try exiftoolValue("IFD0:ImageDescription", path) == caption)
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == caption)
        #expect(try exiftoolValue("IPTC:CodedCharacterSet", path) == "\u{1B}%G")
        #expect(try exiftoolValue("XMP-iptcCore:AltTextAccessibility", path) == "A short alt text")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty, "exiftool has no warning about the file")
        #expect(try ImageDecoder.decode(contentsOf: path) == pixelsBefore)
        let reading = try MetadataReader.read(contentsOf: path)
        #expect(reading.captions.caption == caption.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(reading.captions.source == .xmp && !reading.captions.copiesDisagree)
        #expect(reading.captions.altText == "A short alt text")
    }

    @Test("other XMP languages, existing tags and Latin-1 IPTC text keep their meaning")
    func preservesEverythingElse() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        // exiftool writes Latin-1 IPTC (no CodedCharacterSet), a German description and EXIF.
        try exiftool(["-q", "-overwrite_original", "-charset", "iptc=latin",
                      "-IPTC:Keywords=Café", "-IPTC:By-line=Jürgen Müller", "-IPTC:Caption-Abstract=Alte Beschreibung",
                      "-XMP-dc:Description-de=Ein Hund am Strand", "-XMP-dc:Description=A dog on the beach",
                      "-EXIF:Make=Memora", "-EXIF:Artist=Zoë", path])
        let before = try MetadataReader.read(contentsOf: path)
        #expect(before.captions.iptc == "Alte Beschreibung" && before.captions.xmp == "A dog on the beach")
        #expect(before.keywords == ["Café"])
        try CaptionWriter.write(CaptionUpdate(caption: "Ein Hund rennt"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description-de", path) == "Ein Hund am Strand")
        #expect(try exiftoolValue("IPTC:Keywords", path) == "Café")
        #expect(try exiftoolValue("IPTC:By-line", path) == "Jürgen Müller")
        #expect(try exiftoolValue("IFD0:Make", path) == "Memora")
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "Ein Hund rennt")
    }

    @Test("a snapshot restores the original file byte for byte, including 'no caption'")
    func restore() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Temporary"), to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) != original)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        #expect(try MetadataReader.read(contentsOf: path).captions.hasCaption == false)
    }

    @Test("permissions are kept and the modification time on request; no file is left beside the photo")
    func fileHygiene() throws {
        let path = try makeJPEG()
        let folder = (path as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.setAttributes([.posixPermissions: 0o640, .modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: path)
        try CaptionWriter.write(CaptionUpdate(caption: "Kept"), to: path, options: CaptionWriteOptions(keepModificationTime: true))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o640)
        #expect((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 == 1_000_000_000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["photo.jpg"])
    }
}

@Suite("Reading captions")
struct CaptionReadTests {
    @Test("camera boilerplate is not a caption", arguments: [
        "OLYMPUS DIGITAL CAMERA", "SANYO DIGITAL CAMERA", "DCF 1.0", "Exif JPEG", "   ", "DCIM/100OLYMP", "DSC_0042",
        "IMG_1234.JPG", "KODAK Digital Still Camera", "\u{0}\u{0}",
    ])
    func boilerplate(text: String) {
        #expect(CameraBoilerplate.isBoilerplate(text))
    }

    @Test("real descriptions are captions", arguments: ["A dog", "Olympus mountains at dawn", "Café 東京", "2 kids on a swing"])
    func realCaptions(text: String) {
        #expect(!CameraBoilerplate.isBoilerplate(text))
    }

    @Test("a camera's ImageDescription boilerplate is skipped and reported")
    func skipsBoilerplate() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try exiftool(["-q", "-overwrite_original", "-EXIF:ImageDescription=OLYMPUS DIGITAL CAMERA         ", path])
        let reading = try MetadataReader.read(contentsOf: path).captions
        #expect(!reading.hasCaption)
        #expect(reading.boilerplate[.exif]?.hasPrefix("OLYMPUS DIGITAL CAMERA") == true)
    }

    @Test("priority XMP, EXIF, IPTC; MWG prefers non-blank EXIF; disagreement is reported")
    func priorities() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try exiftool(["-q", "-overwrite_original", "-charset", "iptc=utf8", "-IPTC:CodedCharacterSet=UTF8",
                      "-XMP-dc:Description=From XMP", "-EXIF:ImageDescription=From EXIF", "-IPTC:Caption-Abstract=From IPTC", path])
        let reading = try MetadataReader.read(contentsOf: path).captions
        #expect(reading.caption == "From XMP" && reading.source == .xmp)
        #expect(reading.mwgSource == .exif && reading.copiesDisagree)
        #expect(reading.exif == "From EXIF" && reading.iptc == "From IPTC")
    }

    @Test("Latin-1 IPTC without a marker, UTF-8 EXIF and Windows XP tags decode correctly")
    func textDecoding() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try exiftool(["-q", "-overwrite_original", "-charset", "iptc=latin", "-IPTC:Caption-Abstract=Crème brûlée",
                      "-EXIF:XPComment=Ω comment", "-EXIF:XPTitle=Titre été", path])
        let metadata = try MetadataReader.read(contentsOf: path)
        #expect(metadata.captions.iptc == "Crème brûlée")
        #expect(metadata.windowsComment == "Ω comment" && metadata.windowsTitle == "Titre été")
    }
}

@Suite("Repeated writes")
struct RepeatedWriteTests {
    // A TIFF's XMP and IPTC values are IFD0 values too: one that grows is appended and its old
    // space zeroed, so a TIFF grows by those values when a caption gets longer (Docs/Metadata.md).
    @Test("writing long and short captions in turn reuses the space of earlier ones: the file does not grow", arguments: ["jpg"])
    func noGrowth(format: String) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/photo." + format
        if format == "jpg" {
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 64, height: 48), to: path, as: .jpeg())
        } else {
            try Data(makeTIFF()).write(to: URL(fileURLWithPath: path))
        }
        let long = String(repeating: "Ünïcødé 🐕 ", count: 182)
        var sizes: [Int] = []
        for caption in [long, "Short", long, "Short", long] {
            try CaptionWriter.write(CaptionUpdate(caption: caption), to: path)
            #expect(try exiftoolValue("IFD0:ImageDescription", path) == caption)
            sizes.append(try Data(contentsOf: URL(fileURLWithPath: path)).count)
        }
        #expect(sizes[2] == sizes[4] && sizes[1] < sizes[2], "sizes \(sizes)")
    }
}

@Suite("FotoStation trailers")
struct FotoStationTests {
    /// A JPEG that ends with a FotoStation trailer: a Latin-1 IPTC record (no 1:90) and a soft-edit record.
    /// `padding` zero bytes sit between the end-of-image marker and the trailer, as in some files.
    static func makeFotoStationJPEG(padding: Int = 0) throws -> (path: String, softEdit: [UInt8]) {
        let path = try makeJPEG()
        let latin1 = { (text: String) in TextEncodings.windows1252Encode(text)! }
        let iim = IPTCRecord(dataSets: [
            .init(record: 2, number: 0, value: [0, 4]),
            .init(record: 2, number: 120, value: latin1("Alte Beschreibung")),
            .init(record: 2, number: 25, value: latin1("Café")),
            .init(record: 2, number: 90, value: latin1("München")),
        ]).bytes
        let softEdit: [UInt8] = (0..<48).map { UInt8($0 * 5 & 0xFF) }
        let trailer = FotoStationTrailer(records: [.init(type: 1, data: iim), .init(type: 2, data: softEdit)])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([UInt8](repeating: 0, count: padding) + trailer.bytes))
        try handle.close()
        return (path, softEdit)
    }

    @Test("the IPTC copy in a FotoStation trailer gets the caption, its Latin-1 text is transcoded, the other records stay; restore is exact")
    func caption() throws {
        let (path, softEdit) = try Self.makeFotoStationJPEG(padding: 1)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect(try exiftoolValue("IPTC2:Caption-Abstract", path) == "Alte Beschreibung", "exiftool sees the fixture's trailer")
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let pixels = try ImageDecoder.decode([UInt8](original))
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café — 東京 🌸"), to: path)
        #expect(try exiftoolValue("IPTC2:Caption-Abstract", path) == "Zoë’s café — 東京 🌸")
        #expect(try exiftoolValue("IPTC2:Keywords", path) == "Café")
        #expect(try exiftoolValue("IPTC2:City", path) == "München")
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "Zoë’s café — 東京 🌸", "and the APP13 copy")
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let trailer = try #require(try JPEGFile(written, source: path).fotoStation)
        #expect(trailer.records.map(\.type) == [1, 2] && trailer.records[1].data == softEdit)
        #expect(try ImageDecoder.decode(written) == pixels)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test("1,000 corrupted or cut FotoStation trailers go through read and write without a crash; a refused write changes nothing")
    func mutations() throws {
        let (path, _) = try Self.makeFotoStationJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var generator = MutationRandom(seed: 7)
        let target = path + ".mutant.jpg"
        for round in 0..<1000 {
            var bytes = original
            if round % 5 == 0 {
                bytes.removeLast(1 + generator.next(below: 120))
            } else {
                for _ in 0..<(1 + generator.next(below: 3)) { bytes[bytes.count - 1 - generator.next(below: 160)] = UInt8(generator.next(below: 256)) }
            }
            try writeMutant(bytes, to: target)
        }
    }

    @Test("strip-location removes the city from a FotoStation trailer's IPTC copy")
    func stripLocation() throws {
        let (path, _) = try Self.makeFotoStationJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.stripLocation(from: path)
        #expect(try exiftoolValue("IPTC2:City", path).isEmpty)
        #expect(try exiftoolValue("IPTC2:Caption-Abstract", path) == "Alte Beschreibung")
    }
}

@Suite("IPTC inside EXIF")
struct IPTCInEXIFTests {
    @Test("an IPTC block in a JPEG's EXIF IFD0 (tag 33723) gets the caption too, its Latin-1 text transcoded")
    func iptcInEXIF() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let latin1 = { (text: String) in TextEncodings.windows1252Encode(text)! }
        let iim = IPTCRecord(dataSets: [
            .init(record: 2, number: 0, value: [0, 4]),
            .init(record: 2, number: 120, value: latin1("Alte Beschreibung")),
            .init(record: 2, number: 25, value: latin1("Café")),
        ]).bytes
        let tiff = TIFFBlock.makeNew(ifd0: [(0x010E, 2, 5, Array("Alte\0".utf8)), (0x83BB, 7, UInt32(iim.count), iim)], exifIFD: [])
        var jpeg = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        jpeg.setSegment(marker: 0xE1, signature: JPEGFile.exifSignature, payload: JPEGFile.exifSignature + tiff)
        try Data(jpeg.bytes).write(to: URL(fileURLWithPath: path))
        #expect(try exiftool(["-a", "-s3", "-charset", "iptc=latin", "-Caption-Abstract", path]).contains("Alte Beschreibung"))

        try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café"), to: path)
        let captions = try exiftool(["-a", "-s3", "-charset", "iptc=utf8", "-Caption-Abstract", path]).split(separator: "\n")
        #expect(captions.count == 2 && captions.allSatisfy { $0 == "Zoë’s café" }, "both IPTC copies: \(captions)")
        let written = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let exifTIFF = try #require(written.exifTIFF)
        let embeddedBytes = try #require(try TIFFBlock(exifTIFF, source: path).value(ofIFD0Tag: 0x83BB))
        let embedded = try IPTCRecord(embeddedBytes, source: path)
        #expect(embedded.declaresUTF8 && embedded.strings(record: 2, number: 25) == ["Café"])
    }

    @Test("an embedded copy in ISO 2022 cannot hold the caption: its old caption is removed, the rest kept, restore exact")
    func iso2022CopyLosesItsCaption() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        // ISO 2022 designations (ASCII, JIS X 0208) and a JIS caption: ESC $ B, two-byte codes, ESC ( B.
        let jis: [UInt8] = [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42]
        let iim = IPTCRecord(dataSets: [
            .init(record: 1, number: 90, value: [0x1B, 0x28, 0x42, 0x1B, 0x24, 0x29, 0x42]),
            .init(record: 2, number: 0, value: [0, 4]),
            .init(record: 2, number: 120, value: jis),
            .init(record: 2, number: 25, value: Array("tokyo".utf8)),
        ]).bytes
        let tiff = TIFFBlock.makeNew(ifd0: [(0x010E, 2, 4, Array("Old\0".utf8)), (0x83BB, 7, UInt32(iim.count), iim)], exifIFD: [])
        var jpeg = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        jpeg.setSegment(marker: 0xE1, signature: JPEGFile.exifSignature, payload: JPEGFile.exifSignature + tiff)
        try Data(jpeg.bytes).write(to: URL(fileURLWithPath: path))
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))

        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café 東京"), to: path)
        let written = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let exifTIFF = try #require(written.exifTIFF)
        let embeddedBytes = try #require(try TIFFBlock(exifTIFF, source: path).value(ofIFD0Tag: 0x83BB))
        let embedded = try IPTCRecord(embeddedBytes, source: path)
        #expect(!embedded.dataSets.contains { $0.record == 2 && $0.number == 120 }, "no stale caption left")
        #expect(embedded.dataSets.first { $0.record == 1 && $0.number == 90 }?.value == [0x1B, 0x28, 0x42, 0x1B, 0x24, 0x29, 0x42], "its character set kept")
        #expect(embedded.strings(record: 2, number: 25) == ["tokyo"])
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "Zoë’s café 東京", "the main IPTC record has the caption")
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == original)
    }

    @Test("a record declaring ISO 8859-1 keeps it when the caption fits, and becomes UTF-8 (transcoded) when it does not")
    func declaredLatin1() throws {
        for (caption, staysLatin1) in [("Zoë à la plage", true), ("Zoë’s café 🌸", false)] {
            let path = try makeJPEG()
            defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
            try exiftool(["-q", "-overwrite_original", "-charset", "iptc=latin", "-IPTC:CodedCharacterSet=ESC - A",
                          "-IPTC:Headline=Crème brûlée", "-IPTC:Caption-Abstract=Vieille légende", path])
            #expect(try exiftool(["-s3", "-IPTC:CodedCharacterSet", path]) == "ESC - A\n", "the fixture declares Latin-1")
            try CaptionWriter.write(CaptionUpdate(caption: caption), to: path)
            #expect(try exiftool(["-s3", "-IPTC:CodedCharacterSet", path]) == (staysLatin1 ? "ESC - A\n" : "UTF8\n"))
            #expect(try exiftool(["-s3", "-IPTC:Caption-Abstract", path]) == caption + "\n")
            #expect(try exiftool(["-s3", "-IPTC:Headline", path]) == "Crème brûlée\n", "the other text keeps its meaning")
            #expect(try MetadataReader.read(contentsOf: path).captions.iptc == caption)
        }
    }

    @Test("strip-location removes the city from an IPTC block inside EXIF")
    func stripLocation() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let iim = IPTCRecord(dataSets: [.init(record: 2, number: 90, value: Array("Porto".utf8)), .init(record: 2, number: 25, value: Array("river".utf8))]).bytes
        var jpeg = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        jpeg.setSegment(marker: 0xE1, signature: JPEGFile.exifSignature,
                        payload: JPEGFile.exifSignature + TIFFBlock.makeNew(ifd0: [(0x83BB, 7, UInt32(iim.count), iim)], exifIFD: []))
        try Data(jpeg.bytes).write(to: URL(fileURLWithPath: path))
        try CaptionWriter.stripLocation(from: path)
        let written = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let exifTIFF = try #require(written.exifTIFF)
        let embedded = try IPTCRecord(try #require(try TIFFBlock(exifTIFF, source: path).value(ofIFD0Tag: 0x83BB)), source: path)
        #expect(embedded.strings(record: 2, number: 90).isEmpty && embedded.strings(record: 2, number: 25) == ["river"])
    }
}

@Suite("Legacy and compressed PNG text chunks")
struct PNGTextChunkTests {
    /// A zlib stream of stored (uncompressed) deflate blocks: valid for any inflater, no compressor needed.
    static func storedZlib(_ data: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let final: UInt8 = offset + length == data.count ? 1 : 0
            output += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8 & 0xFF)]
            output += data[offset..<(offset + length)]
            offset += length
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        let adler = b << 16 | a
        return output + [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
    }

    static let packet = Array("""
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq><rdf:li>Anna</rdf:li></rdf:Seq></dc:creator>
        <dc:description><rdf:Alt><rdf:li xml:lang="x-default">Old description</rdf:li></rdf:Alt></dc:description></rdf:Description></rdf:RDF></x:xmpmeta>
        """.utf8)

    /// A PNG whose XMP is in `chunk`, inserted after IHDR.
    static func makePNG(with chunk: PNGFile.Chunk) throws -> String {
        let path = try makeJPEG("shot.png")
        var png = try PNGFile(try ImageEncoder.encode(try SyntheticPhoto.landscape(width: 32, height: 24), as: .png()), source: "fixture")
        png.chunks.insert(chunk, at: 1)
        try Data(png.bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// ImageMagick's raw-profile text: a newline, the name, the byte count padded to 8, then hex in lines of 72.
    static func rawProfile(_ name: String, _ bytes: [UInt8]) -> [UInt8] {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let lines = stride(from: 0, to: hex.count, by: 72).map { start in
            String(hex[hex.index(hex.startIndex, offsetBy: start)..<hex.index(hex.startIndex, offsetBy: min(start + 72, hex.count))])
        }
        return Array(("\n\(name)\n" + String(repeating: " ", count: max(0, 8 - String(bytes.count).count)) + "\(bytes.count)\n"
            + lines.joined(separator: "\n") + "\n").utf8)
    }

    @Test("XMP only in ImageMagick's zTXt raw profile moves into the standard iTXt chunk, edited; restore is exact")
    func legacyRawProfile() throws {
        let profile = Self.rawProfile("xmp", Self.packet)
        let path = try Self.makePNG(with: .init(type: Array("zTXt".utf8), data: PNGFile.LegacyProfile.xmp.keyword + [0, 0] + Self.storedZlib(profile)))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try MetadataReader.read(contentsOf: path).captions.xmp == "Old description")
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s new description"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Zoë’s new description")
        #expect(try exiftoolValue("XMP-dc:Creator", path) == "Anna")
        let png = try PNGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        #expect(png.legacyIndex(.xmp) == nil && png.xmpIndex != nil, "one XMP copy, in the standard chunk")
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test("1,000 corrupted legacy XMP profiles (hex and zlib damage) are refused or written, never a crash")
    func legacyMutations() throws {
        let profile = Self.rawProfile("xmp", Self.packet)
        let path = try Self.makePNG(with: .init(type: Array("zTXt".utf8), data: PNGFile.LegacyProfile.xmp.keyword + [0, 0] + Self.storedZlib(profile)))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let png = try PNGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let index = try #require(png.legacyIndex(.xmp))
        var generator = MutationRandom(seed: 11)
        let target = path + ".mutant.png"
        for _ in 0..<1000 {
            var mutant = png
            var data = mutant.chunks[index].data
            for _ in 0..<(1 + generator.next(below: 3)) { data[PNGFile.LegacyProfile.xmp.keyword.count + 1 + generator.next(below: data.count - PNGFile.LegacyProfile.xmp.keyword.count - 1)] = UInt8(generator.next(below: 256)) }
            mutant.chunks[index].data = data  // the chunk CRC is recomputed, so the damage reaches the parsers
            let bytes = mutant.bytes
            try writeMutant(bytes, to: target)
        }
    }

    @Test("EXIF only in ImageMagick's tEXt raw profile moves into the standard eXIf chunk, edited; restore is exact")
    func legacyEXIFProfile() throws {
        let tiff = TIFFBlock.makeNew(ifd0: [(0x010E, 2, 4, Array("Old\0".utf8)), (0x010F, 2, 7, Array("Memora\0".utf8))], exifIFD: [])
        let text = Self.rawProfile("exif", JPEGFile.exifSignature + tiff)
        let path = try Self.makePNG(with: .init(type: Array("tEXt".utf8), data: PNGFile.LegacyProfile.exif.keyword + [0] + text))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try exiftoolValue("IFD0:Make", path) == "Memora", "exiftool reads the fixture's legacy profile")
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "A new caption"), to: path)
        #expect(try exiftool(["-a", "-s3", "-ImageDescription", path]) == "A new caption\n", "one EXIF copy, with the caption")
        #expect(try exiftool(["-a", "-s3", "-Make", path]) == "Memora\n")
        let png = try PNGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        #expect(png.legacyIndex(.exif) == nil && png.exif != nil)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test("a compressed XMP iTXt chunk is read and rewritten")
    func compressedITXt() throws {
        let data = PNGFile.xmpKeyword + [0, 1, 0, 0, 0] + Self.storedZlib(Self.packet)
        let path = try Self.makePNG(with: .init(type: Array("iTXt".utf8), data: data))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Old description")
        try CaptionWriter.write(CaptionUpdate(caption: "Rewritten"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Rewritten")
        #expect(try exiftoolValue("XMP-dc:Creator", path) == "Anna")
    }

    @Test("zlib: a damaged stream and an oversized one are refused with a typed error")
    func inflateLimits() throws {
        let stream = Self.storedZlib(Array(repeating: 7, count: 1000))
        #expect(try Zlib.inflate(stream[...], source: "ok") == Array(repeating: 7, count: 1000))
        #expect(throws: MetadataError.self) { try Zlib.inflate(stream[...], limit: 100, source: "big") }
        var damaged = stream
        damaged[damaged.count - 1] ^= 0xFF  // the Adler-32 checksum
        #expect(throws: MetadataError.self) { try Zlib.inflate(damaged[...], source: "damaged") }
        #expect(throws: MetadataError.self) { try Zlib.inflate(stream.prefix(500), source: "cut") }
    }
}

@Suite("The fast scan")
struct MetadataScanTests {
    /// exiftool arguments for a camera-like photo: EXIF in `byteOrder`, GPS south-west below sea
    /// level, XMP people, rating and keywords, Latin-1 IPTC.
    static func cameraTags(byteOrder: String) -> [String] {
        ["-q", "-overwrite_original", "-n", "-ExifByteOrder=" + byteOrder, "-EXIF:Make=Memora", "-EXIF:Model=Scan 1", "-EXIF:Orientation=6",
         "-EXIF:DateTimeOriginal=2021:06:05 14:03:02", "-EXIF:OffsetTimeOriginal=-03:00", "-EXIF:ImageDescription=Beach at dawn",
         "-EXIF:XPComment=Windows comment", "-EXIF:ExifImageWidth=320", "-EXIF:ExifImageHeight=240",
         "-GPSLatitude=33.8688", "-GPSLatitudeRef=S", "-GPSLongitude=70.1", "-GPSLongitudeRef=W", "-GPSAltitude=12.5", "-GPSAltitudeRef=1",
         "-XMP-iptcExt:PersonInImage=Ana", "-XMP-iptcExt:PersonInImage=Luis", "-XMP-xmp:Rating=4", "-XMP-dc:Subject=beach",
         "-XMP-dc:Description=Beach at dawn, XMP", "-charset", "iptc=latin", "-IPTC:City=Viña del Mar", "-IPTC:Keywords=Strand"]
    }

    @Test("scan and read agree on every field, for big- and little-endian EXIF", arguments: ["big-endian", "little-endian"])
    func agreesWithRead(byteOrder: String) throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try exiftool(Self.cameraTags(byteOrder: byteOrder) + [path])
        let read = try MetadataReader.read(contentsOf: path)
        let scanned = try MetadataReader.scan(contentsOf: path)
        #expect(scanned == read)
        #expect(read.orientation == 6 && read.make == "Memora" && read.people == ["Ana", "Luis"] && read.gps != nil)
        #expect(abs((scanned.gps?.latitude ?? 0) + 33.8688) < 0.0001 && abs((scanned.gps?.longitude ?? 0) + 70.1) < 0.0001)
        #expect(scanned.gps?.altitude == -12.5 && scanned.dateTaken?.utcOffsetSeconds == -3 * 3600)
        #expect(scanned.windowsComment == "Windows comment" && scanned.pixelWidth == 320)
        // The EXIF part really comes from libexif, named and formatted as libexiv2 does.
        let jpeg = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let fromLibexif = LibExif.interpretedTags(inEXIF: JPEGFile.exifSignature + (jpeg.exifTIFF ?? []))
        let fromLibexiv2 = try MetadataTagReader.tags(contentsOf: path)
        for key in ["Exif.Photo.DateTimeOriginal", "Exif.Photo.OffsetTimeOriginal", "Exif.GPSInfo.GPSLatitude", "Exif.GPSInfo.GPSAltitudeRef",
                    "Exif.Image.Orientation", "Exif.Photo.PixelXDimension", "Exif.GPSInfo.GPSLongitudeRef"] {
            let ours = fromLibexif.first { $0.key == key }?.value
            #expect(ours != nil && ours == fromLibexiv2.first { $0.key == key }?.value, "\(key): \(ours ?? "absent")")
        }
    }

    @Test("a JPEG scan reads only the header: a file cut right after its first scan marker gives the same reading")
    func headerOnly() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try exiftool(Self.cameraTags(byteOrder: "big-endian") + [path])
        let full = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        guard case .file(let header) = try #require(SparseMetadataRead.parts(of: path)) else { Issue.record("no header"); return }
        #expect(header.count < full.count / 2 && header.suffix(2) == [0xFF, 0xDA])
        #expect((try? JPEGFile(header, source: path))?.exifTIFF != nil, "the header parses, so the EXIF goes to libexif")
        let cut = path + ".cut.jpg"
        let sos = header.count - 2
        try Data(full.prefix(sos + 20)).write(to: URL(fileURLWithPath: cut))
        #expect(try MetadataReader.scan(contentsOf: cut) == MetadataReader.read(contentsOf: path))
    }

    @Test("a HEIC scan agrees with read")
    func heic() throws {
        let folder = (try makeJPEG() as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/phone.heic"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 64, height: 48), to: path, as: .heif())
        try exiftool(Self.cameraTags(byteOrder: "little-endian").filter { !$0.hasPrefix("-IPTC") && $0 != "-charset" && $0 != "iptc=latin" } + [path])
        let read = try MetadataReader.read(contentsOf: path)
        #expect(try MetadataReader.scan(contentsOf: path) == read)
        #expect(read.make == "Memora" && read.people == ["Ana", "Luis"] && read.gps != nil)
    }
}

@Suite("Bad input never harms a file")
struct CaptionErrorTests {
    @Test("missing, empty, non-JPEG and truncated files give a typed error and stay byte-identical")
    func refusals() throws {
        let path = try makeJPEG()
        let folder = (path as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: MetadataError.self) { try CaptionWriter.write(CaptionUpdate(caption: "x"), to: folder + "/missing.jpg") }
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let png = try ImageEncoder.encode(try SyntheticPhoto.landscape(width: 16, height: 16), as: .png())
        let cases: [(String, [UInt8])] = [("empty.jpg", []), ("cut.jpg", Array(jpeg.prefix(300))), ("text.jpg", Array("hello".utf8))]
        for (name, bytes) in cases {
            let file = folder + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            do {
                try CaptionWriter.write(CaptionUpdate(caption: "x"), to: file)
                Issue.record("\(name) was written")
            } catch {
                #expect(error.description.contains(name))
            }
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))) == bytes, "\(name) is untouched")
        }
        // A PNG named .jpg is recognised by its content and written as the PNG it is.
        let misnamed = folder + "/png-named.jpg"
        try Data(png).write(to: URL(fileURLWithPath: misnamed))
        try CaptionWriter.write(CaptionUpdate(caption: "Still a PNG"), to: misnamed)
        #expect(ImageFormat.detect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: misnamed)))) == .png)
        #expect(try MetadataReader.read(contentsOf: misnamed).captions.caption == "Still a PNG")
    }

    @Test("a read-only folder fails cleanly and leaves the file intact")
    func readOnlyFolder() throws {
        guard getuid() != 0 else { return }  // root ignores permissions; the CI user may be root
        let path = try makeJPEG()
        let folder = (path as NSString).deletingLastPathComponent
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
        #expect(throws: MetadataError.self) { try CaptionWriter.write(CaptionUpdate(caption: "x"), to: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("2,000 randomly corrupted JPEGs go through read and write without a crash")
    func mutations() throws {
        let path = try makeJPEG()
        let folder = (path as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try exiftool(["-q", "-overwrite_original", "-EXIF:ImageDescription=Seed", "-XMP-dc:Description=Seed", "-IPTC:Caption-Abstract=Seed", path])
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // Corrupt the metadata-heavy head of the file, where parsers are most exposed.
        let head = min(original.count, 4096)
        var generator = MutationRandom(seed: 42)
        func random(_ bound: Int) -> Int { generator.next(below: bound) }
        let target = folder + "/mutant.jpg"
        var written = 0
        for _ in 0..<2000 {
            var bytes = original
            for _ in 0..<(1 + random(4)) { bytes[random(head)] = UInt8(random(256)) }
            if try writeMutant(bytes, to: target) { written += 1 }
        }
        #expect(written > 0)
    }
}

@Suite("XMP toolkit state")
struct XMPToolkitStateTests {
    @Test("an empty language item (a blank dc:title, as Canon's software writes) survives the toolkit's re-serialisation")
    func emptyLanguageItem() throws {
        let packet = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:title><rdf:Alt><rdf:li xml:lang="x-default"/></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        let edited = try Exiv2.applyXMP(packet, edits: [.setLanguageItem(key: CaptionWriter.descriptionKey, language: "x-default", value: "Heaven above Berlin")],
                                        source: "packet")
        let tags = try Exiv2.readXMP(edited, source: "edited")
        #expect(tags.contains { $0.key == "Xmp.dc.title" && $0.language == "x-default" && $0.value.isEmpty })
        #expect(tags.contains { $0.key == CaptionWriter.descriptionKey && $0.value == "Heaven above Berlin" })
        #expect(!String(decoding: edited, as: UTF8.self).contains("memora-empty"))

        // Through a whole write: exiftool still lists the blank title.
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let packetFile = path + ".packet.xmp"
        try Data(packet).write(to: URL(fileURLWithPath: packetFile))
        try exiftool(["-q", "-overwrite_original", "-xmp<=" + packetFile, path])
        try FileManager.default.removeItem(atPath: packetFile)
        try CaptionWriter.write(CaptionUpdate(caption: "Heaven above Berlin"), to: path)
        #expect(try exiftool(["-j", "-XMP-dc:Title", path]).contains("\"Title\": \"\""))
    }

    @Test("a packet that binds `dc` to another namespace does not change how later photos are written")
    func namespacePoisoning() throws {
        let hostile = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://example.com/not-dublin-core/"><dc:description>x</dc:description>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        _ = try? Exiv2.readXMP(hostile, source: "hostile")
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.write(CaptionUpdate(caption: "After a hostile packet"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == "After a hostile packet")
    }
}

@Suite("PNG, HEIC and read-only files")
struct OtherFormatTests {
    @Test("a PNG gets the caption in its standard eXIf and XMP iTXt chunks, pixels unchanged, and restores exactly")
    func png() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/shot.png"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 64, height: 48), to: path, as: .png())
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café 🌸", altText: "Café"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Zoë’s café 🌸")
        #expect(try exiftoolValue("IFD0:ImageDescription", path) == "Zoë’s café 🌸")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty)
        #expect(try ImageDecoder.decode(contentsOf: path) == ImageDecoder.decode([UInt8](original)))
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test("a HEIC made by libheif and tagged by exiftool is read through MetadataKit's own box parser")
    func heicRead() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/phone.heic"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 64, height: 48), to: path, as: .heif())
        try exiftool(["-q", "-overwrite_original", "-XMP-dc:Description=Sunset from the phone", "-EXIF:Make=Memora", path])
        let metadata = try MetadataReader.read(contentsOf: path)
        #expect(metadata.mimeType == "image/heic")
        // libexiv2 0.27.6 alone finds nothing here (it misreads libheif's iloc base offsets).
        #expect(metadata.captions.caption == "Sunset from the phone")
        #expect(metadata.make == "Memora")
    }

    @Test("a read-only file is refused, even for root")
    func readOnlyFile() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: MetadataError.self) { try CaptionWriter.write(CaptionUpdate(caption: "x"), to: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}

/// A real 4x2 uncompressed RGB TIFF, little-endian, built byte by byte.
func makeTIFF() -> [UInt8] {
    var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]
    let entries: [(UInt16, UInt16, UInt32, UInt32)] = [
        (256, 3, 1, 4), (257, 3, 1, 2), (258, 3, 3, 0), (259, 3, 1, 1), (262, 3, 1, 2),
        (273, 4, 1, 0), (277, 3, 1, 3), (278, 3, 1, 2), (279, 4, 1, 24), (284, 3, 1, 1),
    ]
    let ifdSize = 2 + entries.count * 12 + 4
    let bitsOffset = UInt32(8 + ifdSize)
    let stripOffset = bitsOffset + 6
    func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
    bytes += le16(UInt16(entries.count))
    for (tag, type, count, value) in entries {
        let field: [UInt8]
        switch tag {
        case 258: field = le32(bitsOffset)
        case 273: field = le32(stripOffset)
        default: field = type == 3 ? le16(UInt16(value)) + [0, 0] : le32(value)
        }
        bytes += le16(tag) + le16(type) + le32(count) + field
    }
    bytes += [0, 0, 0, 0] + le16(8) + le16(8) + le16(8)
    bytes += (0..<24).map { UInt8($0 * 10) }
    return bytes
}

@Suite("TIFF captions")
struct TIFFCaptionTests {
    @Test("a TIFF gets the caption in IFD0, XMP and IPTC; the strip bytes stay where they were; restore is exact")
    func tiff() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/scan.tif"
        let original = makeTIFF()
        try Data(original).write(to: URL(fileURLWithPath: path))
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café 🌸"), to: path)
        #expect(try exiftoolValue("IFD0:ImageDescription", path) == "Zoë’s café 🌸")
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Zoë’s café 🌸")
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "Zoë’s café 🌸")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty)
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(written[(original.count - 24)..<original.count]) == Array(original.suffix(24)), "pixel strip unchanged in place")
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == original)
    }
}

@Suite("WebP captions")
struct WebPCaptionTests {
    /// A WebP made by Debian's cwebp from a PNG made by ImageKit.
    func makeWebP(lossless: Bool, in folder: String, width: Int = 40, height: Int = 30) throws -> String {
        let png = folder + "/source.png"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: width, height: height), to: png, as: .png())
        let path = folder + (lossless ? "/lossless.webp" : "/lossy.webp")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/cwebp")
        process.arguments = (lossless ? ["-lossless"] : []) + ["-quiet", png, "-o", path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "cwebp (Debian package webp) must be installed")
        return path
    }

    @Test("a simple WebP gains a VP8X header with the bitstream's canvas, EXIF and XMP; restore is exact", arguments: [false, true])
    func webp(lossless: Bool) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try makeWebP(lossless: lossless, in: folder)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café 🌸"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Zoë’s café 🌸")
        #expect(try exiftoolValue("IFD0:ImageDescription", path) == "Zoë’s café 🌸")
        #expect(try exiftoolValue("RIFF:ImageWidth", path) == "40" && exiftoolValue("RIFF:ImageHeight", path) == "30")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty)
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(written[12..<16]) == Array("VP8X".utf8))
        #expect(written[20] & 0x0C == 0x0C, "the EXIF and XMP flags are set")
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }
}

@Suite("Writer safety regressions")
struct WriterSafetyTests {
    @Test("a TIFF restore refuses a file that changed after the write")
    func staleWholeFileSnapshot() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/scan.tif"
        try Data(makeTIFF()).write(to: URL(fileURLWithPath: path))
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "First"), to: path)
        try CaptionWriter.write(CaptionUpdate(caption: "Second"), to: path)
        let current = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: MetadataError.self) { try CaptionWriter.restore(snapshot, to: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == current)
    }

    @Test("an EXIF value that points into its own IFD0 table is refused, not trusted")
    func selfOverlappingValue() throws {
        // Big-endian TIFF: IFD0 at 8 with one ImageDescription entry whose 32-byte value starts at 8.
        var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01]
        tiff += [0x01, 0x0E, 0x00, 0x02, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00]
        tiff += [UInt8](repeating: 0x41, count: 40)
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        var jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let body = Array("Exif".utf8) + [0, 0] + tiff
        jpeg.insert(contentsOf: [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body, at: 2)
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
        #expect(throws: MetadataError.self) { try CaptionWriter.write(CaptionUpdate(caption: "Sunset"), to: path) }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == jpeg)
    }
}

@Suite("Stripping location")
struct StripLocationTests {
    @Test("GPS and location fields go from EXIF, XMP and IPTC; everything else stays; restore brings them back")
    func strip() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try exiftool(["-q", "-overwrite_original", "-charset", "iptc=utf8", "-IPTC:CodedCharacterSet=UTF8",
                      "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E",
                      "-XMP-exif:GPSLatitude=48.8584 N", "-XMP-photoshop:City=Paris", "-XMP-iptcExt:LocationShownCity=Paris",
                      "-IPTC:City=Paris", "-IPTC:Country-PrimaryLocationName=France", "-IPTC:Keywords=tower",
                      "-EXIF:Make=Memora", "-XMP-dc:Description=The tower", path])
        #expect(try MetadataReader.read(contentsOf: path).gps != nil)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let snapshot = try CaptionWriter.stripLocation(from: path)
        let remaining = try exiftool(["-a", "-G1", "-s", "-gps:all", "-XMP-exif:GPS*", "-XMP-photoshop:City", "-XMP-iptcExt:all",
                                      "-IPTC:City", "-IPTC:Country-PrimaryLocationName", path])
        #expect(remaining.isEmpty, "left behind: \(remaining)")
        #expect(try MetadataReader.read(contentsOf: path).gps == nil)
        #expect(try exiftoolValue("EXIF:Make", path) == "Memora")
        #expect(try exiftoolValue("IPTC:Keywords", path) == "tower")
        #expect(try exiftoolValue("XMP-dc:Description", path) == "The tower")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test("in memory: the bytes come back without any location, the file and the pixels untouched; no location, same bytes")
    func inMemory() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try CaptionWriter.strippingLocation(from: plain, source: path) == plain)
        try exiftool(["-q", "-overwrite_original", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945",
                      "-GPSLongitudeRef=E", "-XMP-photoshop:City=Paris", "-EXIF:Make=Memora", path])
        let located = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let stripped = try CaptionWriter.strippingLocation(from: located, source: path)
        let metadata = try MetadataReader.read(stripped)
        #expect(metadata.gps == nil && metadata.place == nil && metadata.make == "Memora")
        #expect(try ImageDecoder.decode(stripped) == ImageDecoder.decode(located))
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == located, "the file is not touched")
        #expect(throws: MetadataError.self) { try CaptionWriter.strippingLocation(from: Array("not a photo".utf8)) }
    }

    @Test("a photo without location is left byte for byte as it was")
    func nothingToStrip() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        try CaptionWriter.stripLocation(from: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }
}

@Suite("Temporary files of killed writers")
struct StaleTemporaryFileTests {
    @Test("a later write removes an old leftover temporary file of the same photo, but not a recent one")
    func cleanup() throws {
        let path = try makeJPEG()
        let folder = (path as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let old = folder + "/.photo.jpg.memora-AbC123", recent = folder + "/.photo.jpg.memora-XyZ789"
        for leftover in [old, recent] { try Data([1, 2, 3]).write(to: URL(fileURLWithPath: leftover)) }
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: old)
        try CaptionWriter.write(CaptionUpdate(caption: "Clean"), to: path)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["photo.jpg", ".photo.jpg.memora-XyZ789"])
    }
}

@Suite("XMP sidecars")
struct SidecarTests {
    @Test("a new sidecar holds the caption and alt text, exiftool reads it, and the photo is not touched")
    func newSidecar() throws {
        let path = try makeJPEG("IMG_0001.heic")  // the content does not matter for a sidecar
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let photo = try Data(contentsOf: URL(fileURLWithPath: path))
        let sidecar = try CaptionWriter.writeSidecar(CaptionUpdate(caption: "Zoë on the ferry, 東京湾", altText: "A girl on a ferry"), for: path)
        #expect(sidecar == path + ".xmp")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == photo)
        let reading = try MetadataReader.read(contentsOf: sidecar).captions
        #expect(reading.xmp == "Zoë on the ferry, 東京湾" && reading.altText == "A girl on a ferry")
        #expect(try exiftoolValue("XMP-dc:Description", sidecar) == "Zoë on the ferry, 東京湾")
    }

    @Test("an existing sidecar (Lightroom's photo.xmp) keeps its other properties and languages")
    func existingSidecar() throws {
        let path = try makeJPEG("DSC_0002.jpg")
        let folder = (path as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lightroom = folder + "/DSC_0002.xmp"
        try exiftool(["-q", "-o", lightroom, "-XMP-dc:Subject=harbour", "-XMP-dc:Description-fr=Le port", "-XMP-xmp:Rating=4", path])
        let sidecar = try CaptionWriter.writeSidecar(CaptionUpdate(caption: "The harbour at noon"), for: path)
        #expect(sidecar == lightroom)
        #expect(try exiftoolValue("XMP-dc:Description", sidecar) == "The harbour at noon")
        #expect(try exiftoolValue("XMP-dc:Description-fr", sidecar) == "Le port")
        #expect(try exiftoolValue("XMP-dc:Subject", sidecar) == "harbour")
        #expect(try exiftoolValue("XMP-xmp:Rating", sidecar) == "4")
        #expect(throws: MetadataError.self) { try CaptionWriter.writeSidecar(CaptionUpdate(caption: "x"), for: folder + "/missing.heic") }
    }
}

@Suite("Concurrent changes")
struct ConcurrentChangeTests {
    @Test("a file changed by someone else while the caption is prepared is not replaced, and keeps their change")
    func changedMeanwhile() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        // Another program rewrites the photo after Memora read it (same size, one byte changed).
        var theirs = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        theirs[theirs.count - 3] ^= 0xFF
        let change = theirs
        let options = CaptionWriteOptions(beforeReplacing: { _ in try Data(change).write(to: URL(fileURLWithPath: path)) })
        do {
            try CaptionWriter.write(CaptionUpdate(caption: "Not this one"), to: path, options: options)
            Issue.record("the write must notice the change")
        } catch {
            #expect(error.code == .changed && error.isRetryable, "a change by another program is worth another try: \(error)")
            #expect(error.reason.contains("changed"))
        }
        #expect(try MetadataReader.read(contentsOf: path).captions.caption == nil)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == theirs)
    }
}
