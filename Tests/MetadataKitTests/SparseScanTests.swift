import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

/// The fast scan reads only the parts of a PNG, WebP or HEIF file that can hold metadata and
/// reads exactly what a scan of the whole file reads.
@Suite("Sparse metadata scans", .tags(.exiftool))
struct SparseScanTests {
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
        let folder = try temporaryFolder("metadatakit")
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
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try WebPCaptionTests().makeWebP(lossless: false, in: folder, width: 1200, height: 900)
        _ = try exiftool(Self.cameraTags + [path])
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(try Self.partsSize(path) * 4 < size, "the image data is not read")
        try Self.expectSameReading(path)
    }

    @Test("HEIF: the ftyp and meta boxes and the metadata items, wherever the mdat is", arguments: [false, true])
    func heif(mdatBeforeMeta: Bool) throws {
        let folder = try temporaryFolder("metadatakit")
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
        let folder = try temporaryFolder("metadatakit")
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

@Suite("Corrupted containers and trailers", .tags(.exiftool))
struct ContainerMutationTests {
    @Test("600 corrupted PNG, WebP and HEIF files go through the sparse scan without a crash, and fail as the whole file does")
    func sparseScanMutations() throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let png = folder + "/seed.png"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 64, height: 48), to: png, as: .png())
        _ = try exiftool(SparseScanTests.cameraTags + [png])
        let webP = try WebPCaptionTests().makeWebP(lossless: false, in: folder, width: 64, height: 48)
        _ = try exiftool(SparseScanTests.cameraTags + [webP])
        let seeds = [try [UInt8](Data(contentsOf: URL(fileURLWithPath: png))), try [UInt8](Data(contentsOf: URL(fileURLWithPath: webP))),
                     HEIFBuilder.photo(withXMP: true).build()]
        var generator = MutationRandom(seed: 7)
        let target = folder + "/mutant"
        var scanned = 0
        for seed in seeds {
            for round in 0..<200 {
                var bytes = seed
                // Header and structure fields first: sizes, types and offsets live there.
                for _ in 0..<(1 + generator.next(below: 3)) {
                    bytes[generator.next(below: min(bytes.count, 600))] = UInt8(generator.next(below: 256))
                }
                if round % 5 == 0 { bytes.removeLast(generator.next(below: bytes.count / 2)) }
                try Data(bytes).write(to: URL(fileURLWithPath: target))
                _ = SparseMetadataRead.parts(of: target)
                let sparse = try? MetadataReader.scan(contentsOf: target)
                let whole = try? MetadataReader.scan(bytes, source: target)
                if sparse != nil { scanned += 1 }
                // A sparse reading may only exist where the whole file can be read too.
                #expect(sparse == nil || whole != nil, "seed \(seeds.firstIndex(of: seed) ?? -1), round \(round)")
            }
        }
        #expect(scanned > 0)
    }

    @Test("500 corrupted AFCP trailers are parsed without a crash; a refused write leaves the file byte for byte")
    func afcpMutations() throws {
        let path = try makeJPEG()
        let folder = (path as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let original = try AFCPTrailerTests.appendTrailer(to: path, bigEndian: true)
        let trailerStart = try #require(try AFCPTrailer.find(in: original[...])).start
        var generator = MutationRandom(seed: 11)
        var written = 0
        for _ in 0..<500 {
            var bytes = original
            for _ in 0..<(1 + generator.next(below: 3)) {
                bytes[trailerStart + generator.next(below: bytes.count - trailerStart)] = UInt8(generator.next(below: 256))
            }
            _ = try? AFCPTrailer.find(in: bytes[...])
            if try writeMutant(bytes, to: folder + "/mutant.jpg") { written += 1 }
        }
        #expect(written > 0)
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
