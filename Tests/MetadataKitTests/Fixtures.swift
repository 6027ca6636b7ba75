import Foundation
import ImageKit
import MemoraSystem
import Testing
@testable import MetadataKit
import TestSupport

extension Tag {
    /// The test runs Debian's exiftool (`libimage-exiftool-perl`, installed by `scripts/install-deps.sh`)
    /// as an independent reader of what Memora wrote.
    @Tag static var exiftool: Tag
}

/// Serialises exiftool runs: Foundation's `Process` on Linux can hand a pipe to a child
/// spawned concurrently by another test, which garbles or loses output.
let exiftoolLock = Locked(())

/// Runs exiftool (Debian's libimage-exiftool-perl) and returns its standard output,
/// collected through a temporary file rather than a pipe.
@discardableResult
func exiftool(_ arguments: [String]) throws -> String {
    try exiftoolLock.withLock { _ in
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

/// A real JPEG from the real encoder, in a fresh folder.
func makeJPEG(_ name: String = "photo.jpg", seed: UInt64 = 1) throws -> String {
    let folder = try temporaryFolder("metadatakit")
    let path = folder + "/" + name
    try ImageEncoder.write(try SyntheticPhoto.landscape(width: 320, height: 240, seed: seed), to: path, as: .jpeg())
    return path
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
