import Foundation
import Testing
@testable import ImageKit
import TestSupport

/// Memory does not grow with bytes a task never looks at: a JPEG's header for `info`, its own
/// stream (not a trailer after it) for decoding, and a header over the pixel limit refused first.
@Suite("Large files are read only as far as needed")
struct LargeFileTests {
    /// A 3 MB trailer (an MPF image, a maker's trailer, padding) after the JPEG's EOI; the tests
    /// lower the whole-file limit to 1 MiB so they stay light in a parallel test run.
    static let trailer = [UInt8](repeating: 0xFF, count: 3 << 20)
    static let limit: Int64 = 1 << 20

    @Test("info reads the header; decoding reads up to EOI; both agree with the JPEG alone", arguments: [false, true])
    func trailerIsNotRead(progressive: Bool) throws {
        let folder = try temporaryFolder("imagekit-tests")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let jpeg = try ImageEncoder.encode(try SyntheticPhoto.landscape(width: 640, height: 480, seed: 3),
                                           as: .jpeg(JPEGEncodingOptions(quality: 0.9, progressive: progressive)))
        let plain = folder + "/plain.jpg", padded = folder + "/padded.jpg"
        try Data(jpeg).write(to: URL(fileURLWithPath: plain))
        try Data(jpeg + Self.trailer).write(to: URL(fileURLWithPath: padded))
        let header = try ImageFileReader.header(padded)
        #expect(header.bytes.count < 64 << 10 && header.fileSize == Int64(jpeg.count + Self.trailer.count))
        let image = try ImageFileReader.image(padded, wholeFileLimit: Self.limit)
        #expect(image.bytes == jpeg, "exactly the JPEG stream, through its EOI marker")
        #expect(try ImageFileReader.image(padded).bytes.count == jpeg.count + Self.trailer.count, "under the limit: read whole")
        let info = try ImageDecoder.info(contentsOf: padded)
        #expect(info.width == 640 && info.height == 480 && info.isProgressive == progressive)
        #expect(info.byteCount == jpeg.count + Self.trailer.count)
        #expect(try ImageDecoder.decode(image.bytes) == ImageDecoder.decode(contentsOf: plain))
    }

    @Test("a large JPEG cut off before its EOI is read whole and reported as truncated")
    func truncatedLargeJPEG() throws {
        let folder = try temporaryFolder("imagekit-tests")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let big = try ImageEncoder.encode(try SyntheticPhoto.landscape(width: 1200, height: 900, seed: 5), as: .jpeg(JPEGEncodingOptions(quality: 1.0)))
        // Repeat the scan data so the file passes the whole-file limit, then cut it: no EOI anywhere.
        var bytes = Array(big.dropLast(2))
        while bytes.count <= Int(Self.limit) { bytes += big[(big.count / 2)..<(big.count - 2)] }
        let path = folder + "/cut.jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let read = try ImageFileReader.image(path, wholeFileLimit: Self.limit)
        #expect(read.bytes.count == bytes.count)
        #expect(throws: ImageError.self) { try ImageDecoder.decode(read.bytes) }
    }

    @Test("a large file whose header declares too many pixels is refused from the header")
    func tooManyPixelsRefusedFirst() throws {
        let folder = try temporaryFolder("imagekit-tests")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var jpeg = try ImageEncoder.encode(try SyntheticPhoto.landscape(width: 64, height: 48, seed: 1), as: .jpeg())
        // Patch the SOF0 frame to 20000 x 20000 (400 megapixels).
        let sof = try #require((0..<(jpeg.count - 9)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg[sof + 5] = 0x4E; jpeg[sof + 6] = 0x20; jpeg[sof + 7] = 0x4E; jpeg[sof + 8] = 0x20
        let path = folder + "/huge.jpg"
        try Data(jpeg + [UInt8](repeating: 0, count: Int(ImageFileReader.wholeFileLimit) + 1)).write(to: URL(fileURLWithPath: path))
        #expect(throws: ImageError.tooLarge(source: path, width: 20000, height: 20000, limit: DecodingOptions.defaultMaxPixelCount)) {
            try ImageDecoder.thumbnail(contentsOf: path, maxPixelSize: 256)
        }
    }
}
