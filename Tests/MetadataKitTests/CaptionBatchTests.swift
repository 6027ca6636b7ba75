import Foundation
import ImageKit
import MemoraSystem
import Testing
@testable import MetadataKit

@Suite("Batch writes", .tags(.exiftool))
struct CaptionBatchTests {
    @Test("a batch captions every good file, reports each bad one in place, and leaves the bad ones byte for byte intact")
    func mixedBatch() throws {
        let first = try makeJPEG("photo-0.jpg", seed: 1)
        let folder = (first as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var good = [first]
        for index in 1..<7 {
            let path = folder + "/photo-\(index).jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 320, height: 240, seed: UInt64(index + 1)), to: path, as: .jpeg())
            good.append(path)
        }
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: first)))
        let cut = folder + "/cut.jpg"
        try Data(jpeg.prefix(300)).write(to: URL(fileURLWithPath: cut))
        let missing = folder + "/missing.jpg"
        // Bad files in the middle and at the end, so order and isolation both show.
        let paths = Array(good[0..<3]) + [cut] + Array(good[3...]) + [missing]
        let pixels = try good.map { try ImageDecoder.decode(contentsOf: $0) }
        let completions = Locked<[Int]>([])

        let results = CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café — 東京 🌸", altText: "Alt"), toEach: paths, concurrency: 3, completed: { index, _ in
            completions.withLock { $0.append(index) }
        })

        #expect(results.count == paths.count)
        #expect(completions.withLock { $0 }.sorted() == Array(paths.indices), "each file is reported once as it finishes")
        for (index, path) in paths.enumerated() {
            switch (path, results[index]) {
            case (cut, .failure(let error)):
                #expect(error.description.contains("cut.jpg"))
                #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: cut))) == Array(jpeg.prefix(300)))
            case (missing, .failure(let error)):
                #expect(error.description.contains("missing.jpg"))
                #expect(!FileManager.default.fileExists(atPath: missing))
            case (_, .success(let snapshot)):
                #expect(snapshot.path == path)
                let reading = try MetadataReader.read(contentsOf: path)
                #expect(reading.captions.caption == "Zoë’s café — 東京 🌸" && reading.captions.altText == "Alt")
                #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "Zoë’s café — 東京 🌸")
                #expect(try ImageDecoder.decode(contentsOf: path) == pixels[good.firstIndex(of: path)!])
            default:
                Issue.record("\(path): unexpected result \(results[index])")
            }
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "no temporary file is left: \(leftovers)")
        // Every snapshot of the batch restores its own file exactly.
        let restored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: good[4])))
        #expect(restored != [UInt8](try Data(contentsOf: URL(fileURLWithPath: good[5]))))
        if case .success(let snapshot) = results[paths.firstIndex(of: good[4])!] {
            try CaptionWriter.restore(snapshot, to: good[4])
            #expect(try MetadataReader.read(contentsOf: good[4]).captions.hasCaption == false)
        }
    }

    @Test("a batch really works on `concurrency` files at once, even with more threads than cores")
    func concurrencyIsReal() {
        let gauge = Locked((running: 0, peak: 0))
        let names = (0..<12).map { "file-\($0)" }
        let results = CaptionWriter.inBatch(names, concurrency: 4, completed: nil) { name throws(MetadataError) -> String in
            gauge.withLock { gauge in
                gauge.running += 1
                gauge.peak = max(gauge.peak, gauge.running)
            }
            usleep(100_000)  // a file waiting on its fsync
            gauge.withLock { $0.running -= 1 }
            if name == "file-5" { throw .io(path: name, reason: "refused") }
            return name.uppercased()
        }
        #expect(gauge.withLock { $0.peak } == 4, "at most and at least 4 at once, on \(ProcessInfo.processInfo.activeProcessorCount) cores")
        #expect(results.map { try? $0.get() } == names.map { $0 == "file-5" ? nil : $0.uppercased() })
    }

    @Test("strip-location as a batch removes GPS from every file; a file without a location is not touched")
    func stripBatch() throws {
        let located = try makeJPEG("located-0.jpg")
        let folder = (located as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let second = folder + "/located-1.jpg", plain = folder + "/plain.jpg"
        try FileManager.default.copyItem(atPath: located, toPath: second)
        try FileManager.default.copyItem(atPath: located, toPath: plain)
        for path in [located, second] {
            try exiftool(["-q", "-overwrite_original", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945",
                          "-GPSLongitudeRef=E", "-XMP-photoshop:City=Paris", "-EXIF:Make=Memora", path])
        }
        let plainBytes = try Data(contentsOf: URL(fileURLWithPath: plain))
        let results = CaptionWriter.stripLocation(fromEach: [located, plain, second], concurrency: 2)
        for result in results { #expect(throws: Never.self) { try result.get() } }
        for path in [located, second] {
            let reading = try MetadataReader.read(contentsOf: path)
            #expect(reading.gps == nil && reading.make == "Memora")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: plain)) == plainBytes)
    }

    @Test("GPS 0, 0 (what a camera without a fix writes) is not a position; one just off it is")
    func gpsWithoutFix() throws {
        let path = try makeJPEG("no-fix.jpg")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try exiftool(["-q", "-overwrite_original", "-GPSLatitude=0", "-GPSLatitudeRef=N", "-GPSLongitude=0", "-GPSLongitudeRef=E", path])
        #expect(try MetadataReader.read(contentsOf: path).gps == nil)
        try exiftool(["-q", "-overwrite_original", "-GPSLatitude=0.5", "-GPSLatitudeRef=S", path])
        #expect(try MetadataReader.read(contentsOf: path).gps?.latitude == -0.5)
    }
}
