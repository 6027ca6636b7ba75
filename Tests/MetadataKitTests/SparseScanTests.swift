import Foundation
import ImageKit
import Testing
@testable import MetadataKit

/// The fast scan reads only the parts of a PNG, WebP or HEIF file that can hold metadata and
/// reads exactly what a scan of the whole file reads.
@Suite("Sparse metadata scans")
struct SparseScanTests {
    /// A fresh folder.
    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "sparse-scan-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Camera-like tags exiftool adds to every fixture.
    static let cameraTags = ["-q", "-q", "-overwrite_original", "-EXIF:Make=Memora", "-EXIF:Model=Sparse", "-EXIF:DateTimeOriginal=2023:05:06 07:08:09",
                             "-GPSLatitude=48.85", "-GPSLatitudeRef=N", "-GPSLongitude=2.35", "-GPSLongitudeRef=E",
                             "-XMP-dc:Description=A sparse caption", "-XMP-dc:Subject=beach"]

    /// The bytes the sparse read returns, and how many there are.
    static func partsSize(_ path: String) throws -> Int {
        switch try #require(SparseMetadataRead.parts(of: path)) {
        case .file(let bytes): return bytes.count
        case .heif(let metadata): return metadata.file.bytes.count + (metadata.exifTIFF?.count ?? 0) + (metadata.xmp?.count ?? 0)
        }
    }

    /// Checks that the scan of `path` equals the scan of its whole bytes and found the fixture's tags.
    static func expectSameReading(_ path: String) throws {
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let sparse = try MetadataReader.scan(contentsOf: path)
        #expect(sparse == (try MetadataReader.scan(whole, source: path)))
        #expect(sparse.make == "Memora" && sparse.captions.caption == "A sparse caption")
        #expect(sparse.gps != nil)
    }

    @Test("PNG: every chunk but the image data, including a metadata chunk after it")
    func png() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/photo.png"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 400, height: 300, seed: 3), to: path, as: .png())
        _ = try exiftool(Self.cameraTags + [path])
        // Move the eXIf chunk behind the image data, where the format allows it too.
        var png = try PNGFile(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let exif = try #require(png.chunks.firstIndex { $0.typeName == "eXIf" })
        let chunk = png.chunks.remove(at: exif)
        png.chunks.insert(chunk, at: png.chunks.count - 1)
        try Data(png.bytes).write(to: URL(fileURLWithPath: path))

        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(try Self.partsSize(path) * 10 < size, "the image data is not read")
        try Self.expectSameReading(path)
    }

    @Test("WebP: the chunk headers and metadata chunks, the image chunk cut to its frame header")
    func webP() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try WebPCaptionTests().makeWebP(lossless: false, in: folder, width: 1200, height: 900)
        _ = try exiftool(Self.cameraTags + [path])
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(try Self.partsSize(path) * 4 < size, "the image data is not read")
        try Self.expectSameReading(path)
    }

    @Test("HEIF: the ftyp and meta boxes and the metadata items, wherever the mdat is", arguments: [false, true])
    func heif(mdatBeforeMeta: Bool) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var builder = HEIFBuilder.photo(caption: "A sparse caption", withXMP: true)
        builder.mdatBeforeMeta = mdatBeforeMeta
        builder.items[0].data = [UInt8](repeating: 0x5A, count: 200_000)  // the image item
        let path = folder + "/photo.heic"
        try Data(builder.build()).write(to: URL(fileURLWithPath: path))
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(try Self.partsSize(path) * 20 < size, "the image item is not read")
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let sparse = try MetadataReader.scan(contentsOf: path)
        #expect(sparse == (try MetadataReader.scan(whole, source: path)))
        #expect(sparse.captions.caption == "A sparse caption")
    }

    @Test("a TIFF, a damaged PNG and a truncated HEIF fall back to the whole file, with the whole file's result or error")
    func fallBack() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tiff = folder + "/photo.tif"
        try Data(JPEGCaptionEditor.newEXIF(caption: Array("A TIFF".utf8) + [0])).write(to: URL(fileURLWithPath: tiff))
        #expect(SparseMetadataRead.parts(of: tiff) == nil, "TIFF is read whole")

        let png = folder + "/cut.png"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 40, height: 30), to: png, as: .png())
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: png)))
        try Data(bytes.prefix(bytes.count - 20)).write(to: URL(fileURLWithPath: png))
        #expect(SparseMetadataRead.parts(of: png) == nil, "no IEND: not plain enough")
        let wholeError = { () -> String? in do { _ = try MetadataReader.read(contentsOf: png); return nil } catch { return "\(error)" } }()
        let scanError = { () -> String? in do { _ = try MetadataReader.scan(contentsOf: png); return nil } catch { return "\(error)" } }()
        #expect(scanError == wholeError)

        let heif = folder + "/cut.heic"
        let built = HEIFBuilder.photo(withXMP: true).build()
        try Data(built.prefix(built.count - 100)).write(to: URL(fileURLWithPath: heif))
        #expect((try? MetadataReader.scan(contentsOf: heif)) == (try? MetadataReader.scan(built.prefix(built.count - 100).map { $0 }, source: heif)))
    }
}

extension SparseMetadataRead.Parts: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.file(let a), .file(let b)): a == b
        case (.heif(let a), .heif(let b)): a.file.bytes == b.file.bytes && a.exifTIFF == b.exifTIFF && a.xmp == b.xmp
        default: false
        }
    }
}
