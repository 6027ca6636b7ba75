import Foundation
internal import MemoraSystem
import ImageKit

/// The demo's sample photos: every format and variant ImageKit reads, made with the real
/// encoders (libturbojpeg, libpng, libheif where it can encode), plus two broken files that
/// show bad input being refused with a clear message.
package enum SampleLibrary {
    /// Writes the samples into `folder` (which must exist) and returns their file names.
    package static func generate(in folder: String) throws -> [String] {
        var names: [String] = []
        func save(_ name: String, _ image: Image, _ format: EncodingFormat) throws {
            try ImageEncoder.write(image, to: folder + "/" + name, as: format)
            names.append(name)
        }
        try save("beach-baseline.jpg", SyntheticPhoto.landscape(width: 4000, height: 3000, seed: 1), .jpeg())
        try save("hills-progressive.jpg", SyntheticPhoto.landscape(width: 3000, height: 2000, seed: 2), .jpeg(JPEGEncodingOptions(progressive: true)))
        try save("portrait.jpg", SyntheticPhoto.landscape(width: 1500, height: 2000, seed: 3), .jpeg())
        try save("grayscale.jpg", SyntheticPhoto.landscape(width: 1600, height: 1200, seed: 4), .jpeg(JPEGEncodingOptions(colorModel: .grayscale)))
        try save("print-cmyk.jpg", SyntheticPhoto.landscape(width: 1200, height: 900, seed: 5), .jpeg(JPEGEncodingOptions(colorModel: .cmyk)))
        try save("screenshot.png", SyntheticPhoto.landscape(width: 1280, height: 800, seed: 6), .png())
        if ImageEncoder.canEncodeHEIF(.hevc) {
            try save("phone.heic", SyntheticPhoto.landscape(width: 1024, height: 768, seed: 7), .heif())
        }
        if ImageEncoder.canEncodeHEIF(.av1) {
            try save("web.avif", SyntheticPhoto.landscape(width: 800, height: 600, seed: 8), .heif(HEIFEncodingOptions(codec: .av1)))
        }
        // A JPEG cut off in the middle, as after an interrupted copy, and a text file.
        let full = try ImageEncoder.encode(SyntheticPhoto.landscape(width: 800, height: 600, seed: 9), as: .jpeg())
        try AtomicFileWriter.write(Array(full.prefix(full.count / 2)), to: folder + "/interrupted-copy.jpg")
        names.append("interrupted-copy.jpg")
        try AtomicFileWriter.write(Array("not a photo\n".utf8), to: folder + "/notes.jpg")
        names.append("notes.jpg")
        return names
    }
}
