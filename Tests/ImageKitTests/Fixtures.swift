import Foundation
import ImageKit
import Testing
import TestSupport

/// Test fixtures made with ImageKit's real encoders, and small helpers.
enum Fixtures {
    /// Four flat quadrants: red, green / blue, white. Big enough that JPEG blocks
    /// in each quadrant's interior are flat.
    static let quadrantColors = [
        RGBAColor(red: 220, green: 30, blue: 30), RGBAColor(red: 30, green: 200, blue: 40),
        RGBAColor(red: 30, green: 40, blue: 210), RGBAColor(red: 250, green: 250, blue: 250),
    ]

    /// A `width` x `height` image of four flat quadrants (see ``quadrantColors``).
    static func quadrants(width: Int = 64, height: Int = 48, alpha: UInt8? = nil) throws -> Image {
        let format: PixelFormat = alpha == nil ? .rgb8 : .rgba8
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * format.bytesPerPixel)
        for y in 0..<height {
            for x in 0..<width {
                let color = quadrantColors[(y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)]
                pixels += [color.red, color.green, color.blue]
                if let alpha { pixels.append(alpha) }
            }
        }
        return try Image(width: width, height: height, pixelFormat: format, pixels: pixels)
    }

    /// The colour expected at the centre of each quadrant, with the points to probe.
    static func quadrantProbes(width: Int, height: Int) -> [(x: Int, y: Int, color: RGBAColor)] {
        [
            (width / 4, height / 4, quadrantColors[0]), (3 * width / 4, height / 4, quadrantColors[1]),
            (width / 4, 3 * height / 4, quadrantColors[2]), (3 * width / 4, 3 * height / 4, quadrantColors[3]),
        ]
    }


    /// Writes raw bytes to a new file in a new temporary folder and returns its path.
    static func file(named name: String, bytes: [UInt8]) throws -> String {
        let path = try temporaryFolder("imagekit-tests") + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A minimal EXIF APP1 segment (big-endian TIFF) holding only IFD0 Orientation.
    static func exifOrientationSegment(_ orientation: Int) -> [UInt8] {
        let tiff = TIFFBuilder(.big)
        return JPEGBuilder.exifSegment(tiff.block([tiff.short(0x0112, UInt16(orientation))]))
    }

    /// `jpeg` with an EXIF orientation segment inserted right after SOI.
    static func jpeg(_ jpeg: [UInt8], withOrientation orientation: Int) -> [UInt8] {
        JPEGBuilder.inserting(exifOrientationSegment(orientation), into: jpeg)
    }

    /// The JPEG marker codes in the file, in order, up to the first scan.
    static func jpegMarkers(_ bytes: [UInt8]) -> [UInt8] {
        var markers: [UInt8] = []
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            markers.append(marker)
            if marker == 0xDA { break }
            offset += 2 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
        }
        return markers
    }
}

/// Expects two colours to match within `tolerance` on every channel.
func expectClose(_ actual: RGBAColor, _ expected: RGBAColor, tolerance: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    let pairs = [(actual.red, expected.red), (actual.green, expected.green), (actual.blue, expected.blue), (actual.alpha, expected.alpha)]
    let worst = pairs.map { abs(Int($0.0) - Int($0.1)) }.max() ?? 0
    #expect(worst <= tolerance, "got \(actual), expected \(expected) ± \(tolerance)", sourceLocation: sourceLocation)
}
