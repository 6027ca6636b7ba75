import Foundation
import ImageKit
import Testing
import TestSupport

@Suite("Bad input gives a typed error naming the file, never a crash")
struct ErrorTests {
    func sampleJPEG() throws -> [UInt8] {
        try ImageEncoder.encode(try SyntheticPhoto.landscape(width: 96, height: 64, seed: 9), as: .jpeg())
    }

    @Test("a missing file, a directory and a zero-byte file")
    func fileProblems() throws {
        let folder = try temporaryFolder("imagekit-tests")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: ImageError.fileNotFound(path: folder + "/missing.jpg")) {
            try ImageDecoder.decode(contentsOf: folder + "/missing.jpg")
        }
        #expect(throws: ImageError.unreadable(path: folder, reason: "it is a directory", systemCode: EISDIR)) {
            try ImageDecoder.decode(contentsOf: folder)
        }
        #expect(throws: ImageError.unreadable(path: "/dev/zero", reason: "not a regular file")) {
            try ImageDecoder.decode(contentsOf: "/dev/zero")
        }
        let empty = try Fixtures.file(named: "empty.jpg", bytes: [])
        #expect(throws: ImageError.empty(source: empty)) { try ImageDecoder.decode(contentsOf: empty) }
        #expect(ImageError.empty(source: empty).description.contains("empty.jpg"))
    }

    @Test("a text file and formats ImageKit cannot decode")
    func notImages() throws {
        let text = try Fixtures.file(named: "notes.jpg", bytes: Array("shopping list\n".utf8))
        #expect(throws: ImageError.unrecognizedFormat(source: text)) { try ImageDecoder.decode(contentsOf: text) }
        let gif = Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 32)
        #expect(throws: ImageError.unsupportedFormat(source: "x.gif", format: .gif)) { try ImageDecoder.decode(gif, source: "x.gif") }
    }

    @Test("a JPEG cut off at any point is reported as truncated or damaged", arguments: [0.3, 0.5, 0.9, 0.99])
    func truncatedJPEG(fraction: Double) throws {
        let jpeg = try sampleJPEG()
        let cut = Array(jpeg.prefix(Int(Double(jpeg.count) * fraction)))
        do {
            _ = try ImageDecoder.decode(cut, source: "cut.jpg")
            Issue.record("a truncated JPEG decoded without error")
        } catch {
            guard error.code == .truncated else {
                Issue.record("expected .truncated, got \(error)")
                return
            }
            #expect(error.path == "cut.jpg")
            #expect(error.description.contains("cut.jpg"))
        }
    }

    @Test("a JPEG cut inside its headers is truncated or damaged, not decoded")
    func truncatedHeaders() throws {
        let jpeg = try sampleJPEG()
        for length in [3, 10, 40, 100, 200] {
            #expect(throws: ImageError.self) { try ImageDecoder.decode(Array(jpeg.prefix(length)), source: "short.jpg") }
            #expect(throws: ImageError.self) { try ImageDecoder.info(of: Array(jpeg.prefix(length)), source: "short.jpg") }
        }
    }

    @Test("truncated PNG, HEIC and AVIF files are errors")
    func truncatedOthers() throws {
        let photo = try SyntheticPhoto.landscape(width: 64, height: 48, seed: 2)
        let files: [(String, [UInt8])] = [
            ("cut.png", try ImageEncoder.encode(photo, as: .png())),
            ("cut.heic", try ImageEncoder.encode(photo, as: .heif())),
            ("cut.avif", try ImageEncoder.encode(photo, as: .heif(HEIFEncodingOptions(codec: .av1)))),
        ]
        for (name, bytes) in files {
            for fraction in [0.2, 0.6, 0.95] {
                let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
                do {
                    _ = try ImageDecoder.decode(cut, source: name)
                    Issue.record("\(name) cut at \(fraction) decoded without error")
                } catch {
                    #expect(error.description.contains(name))
                }
            }
        }
    }

    @Test("damaged HEIC and AVIF data are refused in plain words: the decoder's own text (\"Error parsing OBU data\") and API names stay out")
    func plainWordsForDecoderFailures() throws {
        let photo = try SyntheticPhoto.landscape(width: 64, height: 48, seed: 3)
        for (name, bytes) in [("bad.heic", try ImageEncoder.encode(photo, as: .heif())),
                              ("bad.avif", try ImageEncoder.encode(photo, as: .heif(HEIFEncodingOptions(codec: .av1))))] {
            // The coded image is the mdat box's payload: fill it with 0xFF bytes, which no decoder parses.
            var damaged = bytes
            let mdat = try #require((4..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == Array("mdat".utf8) })
            for index in (mdat + 4)..<bytes.count { damaged[index] = 0xFF }
            do {
                _ = try ImageDecoder.decode(damaged, source: name)
                Issue.record("\(name) with damaged image data decoded without error")
            } catch {
                #expect(error.description.contains(name))
                for noise in ["OBU", "libheif", "heif_", "Error parsing", "maxPixelCount", "DecodingOptions"] {
                    #expect(!error.description.contains(noise), "\(error.description)")
                }
            }
        }
        let bomb = ImageError.tooLarge(source: "big.jpg", width: 60000, height: 60000, limit: 100_000_000)
        #expect(!bomb.description.contains("DecodingOptions") && bomb.description.contains("100000000"))
    }

    @Test("a decompression bomb is refused from its header, before pixels are allocated")
    func decompressionBomb() throws {
        // A real 16x16 JPEG whose frame header is patched to claim 60000x60000.
        var jpeg = try ImageEncoder.encode(try Image(width: 16, height: 16, fill: .white), as: .jpeg())
        let sof = try #require((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg[sof + 5] = 0xEA; jpeg[sof + 6] = 0x60  // height 60000
        jpeg[sof + 7] = 0xEA; jpeg[sof + 8] = 0x60  // width 60000
        #expect(throws: ImageError.tooLarge(source: "bomb.jpg", width: 60000, height: 60000, limit: 100_000_000)) {
            try ImageDecoder.decode(jpeg, source: "bomb.jpg")
        }
        // The limit is configurable, for PNG, HEIC and thumbnails alike.
        let photo = try SyntheticPhoto.landscape(width: 200, height: 100)
        let small = DecodingOptions(maxPixelCount: 10_000)
        for format in [EncodingFormat.png(), .heif(), .jpeg()] {
            let bytes = try ImageEncoder.encode(photo, as: format)
            #expect(throws: ImageError.tooLarge(source: "big", width: 200, height: 100, limit: 10_000)) {
                try ImageDecoder.decode(bytes, source: "big", options: small)
            }
            #expect(throws: ImageError.self) { try ImageDecoder.thumbnail(bytes, source: "big", maxPixelSize: 10, options: small) }
        }
    }

    @Test("a PNG whose header claims a huge size is refused")
    func pngBomb() throws {
        let png = pngDeclaring(width: 50000, height: 50000, try ImageEncoder.encode(try Image(width: 4, height: 4, fill: .white), as: .png()))
        #expect(throws: ImageError.tooLarge(source: "bomb.png", width: 50000, height: 50000, limit: 100_000_000)) {
            try ImageDecoder.decode(png, source: "bomb.png")
        }
    }

    @Test("random corruption of JPEG, PNG, HEIC and AVIF files never crashes the decoder")
    func mutations() throws {
        let photo = try SyntheticPhoto.landscape(width: 48, height: 32, seed: 4)
        let originals = [
            try ImageEncoder.encode(photo, as: .jpeg()),
            try ImageEncoder.encode(photo, as: .jpeg(JPEGEncodingOptions(progressive: true))),
            try ImageEncoder.encode(photo, as: .png()),
            try ImageEncoder.encode(photo, as: .heif()),
            try ImageEncoder.encode(photo, as: .heif(HEIFEncodingOptions(codec: .av1))),
        ]
        var state: UInt64 = 0x1234_5678
        func random(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var decoded = 0, refused = 0
        for original in originals {
            for _ in 0..<60 {
                var bytes = original
                for _ in 0..<(1 + random(8)) {
                    bytes[random(bytes.count)] = UInt8(random(256))
                }
                do {
                    let image = try ImageDecoder.decode(bytes, source: "mutated")
                    #expect(image.pixels.count == image.width * image.height * image.pixelFormat.bytesPerPixel)
                    decoded += 1
                } catch {
                    #expect(error.description.hasPrefix("mutated"))
                    refused += 1
                }
            }
        }
        #expect(decoded + refused == 300)
    }
}

@Suite("Atomic writes")
struct AtomicWriteTests {
    @Test("writing replaces a file completely and leaves no temporary file")
    func replace() throws {
        let folder = try temporaryFolder("imagekit-tests")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.png"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let image = try Fixtures.quadrants()
        try ImageEncoder.write(image, to: path, as: .png())
        #expect(try ImageDecoder.decode(contentsOf: path) == image)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.png"])
    }

    @Test("a failed write names the file and leaves nothing behind")
    func failure() throws {
        let folder = try temporaryFolder("imagekit-tests")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/no-such-folder/out.jpg"
        let image = try Fixtures.quadrants()
        do {
            try ImageEncoder.write(image, to: path, as: .jpeg())
            Issue.record("writing into a missing folder succeeded")
        } catch {
            guard error.code == .writeFailed else {
                Issue.record("expected .writeFailed, got \(error)")
                return
            }
            #expect(error.path == path)
            #expect(error.systemCode != nil && !error.isRetryable, "the errno of the failed call is kept: \(error)")
            #expect(error.message.components(separatedBy: path).count == 2, "the path once: \(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}
