import Foundation
import ImageKit
import TestSupport
@testable import MemoraCore

/// A real JPEG from the real encoder with an EXIF block that carries what must never
/// leave the device: camera make, capture date and a GPS position.
func makeCameraJPEG(in folder: String, name: String = "photo.jpg", seed: UInt64 = 1, width: Int = 640, height: Int = 480) throws -> String {
    let encoded = try ImageEncoder.encode(try SyntheticPhoto.landscape(width: width, height: height, seed: seed), as: .jpeg())
    let path = folder + "/" + name
    try Data(JPEGBuilder.inserting(JPEGBuilder.exifSegment(TIFFBuilder().cameraBlock()), into: encoded)).write(to: URL(fileURLWithPath: path))
    return path
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
