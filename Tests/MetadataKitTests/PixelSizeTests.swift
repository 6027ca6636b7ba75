import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

/// The pixel size comes from the file's own structure; EXIF's copy is only the fallback.
@Suite("Pixel sizes", .tags(.exiftool))
struct PixelSizeTests {
    /// Reads `path` both ways and checks the size.
    static func expectSize(_ path: String, _ width: Int, _ height: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let read = try MetadataReader.read(contentsOf: path)
        let scan = try MetadataReader.scan(contentsOf: path)
        #expect(read.pixelWidth == width && read.pixelHeight == height, "read: \(String(describing: read.pixelWidth))x\(String(describing: read.pixelHeight))", sourceLocation: sourceLocation)
        #expect(scan.pixelWidth == width && scan.pixelHeight == height, "scan", sourceLocation: sourceLocation)
    }

    @Test("JPEG: the frame header wins over a stale EXIF PixelXDimension")
    func jpeg() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        _ = try exiftool(["-q", "-overwrite_original", "-EXIF:ExifImageWidth=4000", "-EXIF:ExifImageHeight=3000", path])
        try Self.expectSize(path, 320, 240)
    }

    @Test("PNG, lossy and lossless WebP (simple and extended), HEIC and AVIF from their real encoders")
    func otherFormats() throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let png = folder + "/photo.png"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 48, height: 32), to: png, as: .png())
        try Self.expectSize(png, 48, 32)
        for lossless in [false, true] {
            let webP = try WebPCaptionTests().makeWebP(lossless: lossless, in: folder, width: 41, height: 29)
            try Self.expectSize(webP, 41, 29)
            try CaptionWriter.write(CaptionUpdate(caption: "Extended now"), to: webP)  // VP8X
            try Self.expectSize(webP, 41, 29)
        }
        for codec in [HEIFEncodingOptions.Codec.hevc, .av1] where ImageEncoder.canEncodeHEIF(codec) {
            let heif = folder + (codec == .hevc ? "/photo.heic" : "/photo.avif")
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 96, height: 64), to: heif, as: .heif(.init(codec: codec)))
            try Self.expectSize(heif, 96, 64)
        }
    }

    static func tag(_ key: String, _ value: String) -> MetadataTag {
        MetadataTag(family: .exif, key: key, typeName: "Long", value: value, language: "", rawBytes: [])
    }

    @Test("TIFF: IFD0 when it is the image; a DNG-style reduced IFD0 gives way to the full-size sub-IFD")
    func tiff() throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fields = TagIndex([
            Self.tag("Exif.Image.NewSubfileType", "1"), Self.tag("Exif.Image.ImageWidth", "256"),
            Self.tag("Exif.Image.ImageLength", "171"), Self.tag("Exif.SubImage1.NewSubfileType", "0"),
            Self.tag("Exif.SubImage1.ImageWidth", "5392"), Self.tag("Exif.SubImage1.ImageLength", "3592"),
        ])
        #expect(MetadataReader.tiffSize(fields, mimeType: "image/tiff").map { [$0.width, $0.height] } == [5392, 3592])
        #expect(MetadataReader.tiffSize(TagIndex(Array(fields.tags[1...2])), mimeType: "image/tiff").map { [$0.width, $0.height] } == [256, 171])
        #expect(MetadataReader.tiffSize(fields, mimeType: "image/jpeg") == nil, "a JPEG's IFD0 is not its frame")
    }
}
