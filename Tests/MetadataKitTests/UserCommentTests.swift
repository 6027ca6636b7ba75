import Foundation
import ImageKit
import Testing
@testable import MetadataKit

/// EXIF and XMP `UserComment`, which iOS and macOS set to "Screenshot" on their screenshots.
@Suite("User comments", .tags(.exiftool))
struct UserCommentTests {
    @Test("EXIF UserComment in a JPEG and XMP exif:UserComment in a PNG are read, by the reader and the fast scan alike")
    func written() throws {
        let jpeg = try makeJPEG()
        try exiftool(["-overwrite_original", "-UserComment=Screenshot", jpeg])
        #expect(try MetadataReader.read(contentsOf: jpeg).userComment == "Screenshot")
        #expect(try MetadataReader.scan(contentsOf: jpeg).userComment == "Screenshot")

        let png = try makeJPEG("shot.png")
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 64, height: 48), to: png, as: .png())
        #expect(try MetadataReader.read(contentsOf: png).userComment == nil, "a PNG without one")
        try exiftool(["-overwrite_original", "-XMP-exif:UserComment=Screenshot", png])
        #expect(try MetadataReader.read(contentsOf: png).userComment == "Screenshot")
    }

    @Test("the EXIF value's character code: ASCII, undefined and UNICODE in either byte order are read; JIS and a short value are not")
    func characterCodes() {
        let text = Array("Screenshot".utf8)
        #expect(MetadataReader.userComment(exif: Array("ASCII".utf8) + [0, 0, 0] + text) == "Screenshot")
        #expect(MetadataReader.userComment(exif: [UInt8](repeating: 0, count: 8) + text + [0x20, 0x20]) == "Screenshot")
        let unicode = Array("UNICODE".utf8) + [0]
        #expect(MetadataReader.userComment(exif: unicode + text.flatMap { [$0, 0] }) == "Screenshot", "little-endian")
        #expect(MetadataReader.userComment(exif: unicode + text.flatMap { [0, $0] }) == "Screenshot", "big-endian")
        #expect(MetadataReader.userComment(exif: unicode + Array("Écran".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) == "Écran")
        #expect(MetadataReader.userComment(exif: Array("JIS".utf8) + [0, 0, 0, 0, 0] + text) == nil)
        #expect(MetadataReader.userComment(exif: Array("ASCII".utf8)) == nil)
    }
}
