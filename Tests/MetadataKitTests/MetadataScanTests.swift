import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("The fast scan", .tags(.exiftool))
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
