import Foundation
import ImageKit
@testable import MemoraCore

/// A fresh temporary folder, removed by the caller.
func temporaryFolder(_ label: String = "memoracore") throws -> String {
    let folder = NSTemporaryDirectory() + label + "-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}

/// A real JPEG from the real encoder with an EXIF block that carries what must never
/// leave the device: camera make, capture date and a GPS position.
func makeCameraJPEG(in folder: String, name: String = "photo.jpg", seed: UInt64 = 1, width: Int = 640, height: Int = 480) throws -> String {
    let encoded = try ImageEncoder.encode(try SyntheticPhoto.landscape(width: width, height: height, seed: seed), as: .jpeg())
    let exif = Array("Exif\0\0".utf8) + EXIFBuilder.cameraBlock()
    let segment: [UInt8] = [0xFF, 0xE1, UInt8((exif.count + 2) >> 8), UInt8((exif.count + 2) & 0xFF)] + exif
    let path = folder + "/" + name
    try Data(Array(encoded[0..<2]) + segment + Array(encoded[2...])).write(to: URL(fileURLWithPath: path))
    return path
}

/// Builds a little-endian TIFF block: IFD0 (Make, Model, ExifIFD and GPS pointers),
/// the EXIF IFD (DateTimeOriginal) and the GPS IFD (latitude and longitude).
enum EXIFBuilder {
    struct Entry { var tag: UInt16; var type: UInt16; var count: UInt32; var data: [UInt8] }

    static func ascii(_ tag: UInt16, _ text: String) -> Entry {
        let bytes = Array(text.utf8) + [0]
        return Entry(tag: tag, type: 2, count: UInt32(bytes.count), data: bytes)
    }

    static func long(_ tag: UInt16, _ value: UInt32) -> Entry { Entry(tag: tag, type: 4, count: 1, data: le32(value)) }

    static func rationals(_ tag: UInt16, _ values: [(UInt32, UInt32)]) -> Entry {
        Entry(tag: tag, type: 5, count: UInt32(values.count), data: values.flatMap { le32($0.0) + le32($0.1) })
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    /// Serialises one IFD at `offset`; values longer than 4 bytes follow it.
    static func ifd(_ entries: [Entry], at offset: Int) -> [UInt8] {
        var table = le16(UInt16(entries.count))
        var data: [UInt8] = []
        let dataStart = offset + 2 + entries.count * 12 + 4
        for entry in entries.sorted(by: { $0.tag < $1.tag }) {
            table += le16(entry.tag) + le16(entry.type) + le32(entry.count)
            if entry.data.count <= 4 {
                table += entry.data + [UInt8](repeating: 0, count: 4 - entry.data.count)
            } else {
                table += le32(UInt32(dataStart + data.count))
                data += entry.data
                if data.count % 2 == 1 { data.append(0) }
            }
        }
        return table + le32(0) + data
    }

    static func cameraBlock() -> [UInt8] {
        let header: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(8)
        // Sizes are computed in two passes: IFD0 first with placeholder pointers.
        func build(exifOffset: UInt32, gpsOffset: UInt32) -> [UInt8] {
            ifd([ascii(0x010F, "TESTCAM"), ascii(0x0110, "Model 7"), long(0x8769, exifOffset), long(0x8825, gpsOffset)], at: 8)
        }
        let ifd0Size = build(exifOffset: 0, gpsOffset: 0).count
        let exifOffset = 8 + ifd0Size
        let exifIFD = ifd([ascii(0x9003, "2019:07:14 16:05:09")], at: exifOffset)
        let gpsOffset = exifOffset + exifIFD.count
        let gpsIFD = ifd([
            ascii(0x0001, "N"), rationals(0x0002, [(48, 1), (51, 1), (2964, 100)]),
            ascii(0x0003, "E"), rationals(0x0004, [(2, 1), (17, 1), (4020, 100)]),
        ], at: gpsOffset)
        return header + build(exifOffset: UInt32(exifOffset), gpsOffset: UInt32(gpsOffset)) + exifIFD + gpsIFD
    }
}

/// The JPEG marker segments before the image data: (marker, payload).
func jpegSegments(_ bytes: [UInt8]) -> [(UInt8, [UInt8])] {
    var segments: [(UInt8, [UInt8])] = []
    var index = 2
    while index + 4 <= bytes.count, bytes[index] == 0xFF {
        let marker = bytes[index + 1]
        if marker == 0xDA { break }
        let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
        segments.append((marker, Array(bytes[(index + 4)..<min(bytes.count, index + 2 + length)])))
        index += 2 + length
    }
    return segments
}
