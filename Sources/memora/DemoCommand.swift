import ArgumentParser
import Foundation
import ImageKit

/// `memora demo`: generates a sample photo library with the real encoders and
/// runs the main job on it: inspect every photo, make upright thumbnails,
/// and render a contact-sheet collage. Each module's issue extends this job.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Generate a sample photo library and run the main job on it.")

    @Option(help: "The folder to create the sample library and results in.")
    var output = "demo-output"

    @Option(help: "The longest side of the thumbnails, in pixels.")
    var thumbnailSize = 384

    @Flag(help: "Print the summary as JSON.")
    var json = false

    /// What the demo did, for `--json`.
    struct Summary: Encodable {
        var library: String
        var photos: [PhotoResult]
        var collage: String
        var collageWidth: Int
        var collageHeight: Int
        var seconds: Double
    }

    /// One photo of the demo.
    struct PhotoResult: Encodable {
        var file: String
        var format: String?
        var width: Int?
        var height: Int?
        var thumbnail: String?
        var error: String?
    }

    func run() throws {
        let start = Date()
        let library = output + "/library"
        let thumbnails = output + "/thumbnails"
        for folder in [library, thumbnails] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let files = try SampleLibrary.generate(in: library)

        let progress = ProgressReporter(title: "thumbnails", total: files.count)
        var results: [PhotoResult] = []
        var collageTiles: [Image] = []
        for (index, file) in files.enumerated() {
            let path = library + "/" + file
            var result = PhotoResult(file: file)
            do throws(ImageError) {
                let info = try ImageDecoder.info(contentsOf: path)
                result.format = info.format.displayName
                result.width = info.uprightWidth
                result.height = info.uprightHeight
                let thumbnail = try ImageDecoder.thumbnail(
                    contentsOf: path, maxPixelSize: thumbnailSize, options: DecodingOptions(applyOrientation: true))
                let name = thumbnails + "/" + (file as NSString).deletingPathExtension + ".jpg"
                try ImageEncoder.write(thumbnail, to: name, as: .jpeg())
                result.thumbnail = name
                collageTiles.append(thumbnail)
            } catch {
                result.error = error.description
            }
            results.append(result)
            progress.update(completed: index + 1, item: file)
        }

        // A 2-column by 3-row contact sheet on a 4:5 canvas, like a memory collage.
        var canvas = try Canvas(width: 1200, height: 1500, background: RGBAColor(red: 250, green: 247, blue: 240))
        let cells = try Canvas.gridCells(width: 1200, height: 1500, columns: 2, rows: 3, spacing: 24, padding: 48)
        for (cell, tile) in zip(cells, collageTiles) {
            try canvas.draw(tile, filling: cell, cornerRadius: 28)
        }
        let collagePath = output + "/collage.jpg"
        try ImageEncoder.write(canvas.image, to: collagePath, as: .jpeg(JPEGEncodingOptions(quality: 0.9)))

        let summary = Summary(
            library: library, photos: results, collage: collagePath,
            collageWidth: canvas.image.width, collageHeight: canvas.image.height,
            seconds: Date().timeIntervalSince(start))
        if json {
            try printJSON(summary)
            return
        }
        print("Sample library: \(library) (\(files.count) files, made with libturbojpeg, libpng and libheif)")
        for photo in results {
            if let error = photo.error {
                print("  \(photo.file): refused: \(error)")
            } else {
                print("  \(photo.file): \(photo.format ?? "?") \(photo.width ?? 0)x\(photo.height ?? 0) -> \(photo.thumbnail ?? "")")
            }
        }
        print("Collage: \(collagePath) (\(canvas.image.width)x\(canvas.image.height), \(min(cells.count, collageTiles.count)) photos)")
        print(String(format: "Done in %.2f s.", summary.seconds))
    }
}

/// The demo's sample photos: every format and variant ImageKit reads, plus two
/// broken files to show that bad input is refused with a clear message.
enum SampleLibrary {
    /// Writes the samples into `folder` and returns their file names.
    static func generate(in folder: String) throws -> [String] {
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
        try Data(full.prefix(full.count / 2)).write(to: URL(fileURLWithPath: folder + "/interrupted-copy.jpg"))
        names.append("interrupted-copy.jpg")
        try Data("not a photo\n".utf8).write(to: URL(fileURLWithPath: folder + "/notes.jpg"))
        names.append("notes.jpg")
        return names
    }
}
