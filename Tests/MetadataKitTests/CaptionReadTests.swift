import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("Reading captions", .tags(.exiftool))
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
