import Foundation
import ImageKit
import MemoraSystem
import PhotoVision
import PhotoVisionCore
import Testing
@testable import PhotoIndex

/// The indexer with the vision models (installed by scripts/install-models.sh): faces found in
/// the pixels, named by the metadata region they overlap, with embeddings; the scene's features
/// and labels; the index reads them back.
@Suite("Indexing with vision")
struct IndexVisionTests {
    static let vision: IndexVision? = try? IndexVision.installed()

    /// A 1200x800 JPEG with the astronaut's face (fixtures/astronaut.png) at (100, 150), 400 px wide.
    static func photoWithFace(at path: String) throws {
        let astronaut = try ImageDecoder.decode(contentsOf: VisionModels.installed.folder + "/fixtures/astronaut.png").resized(width: 400, height: 400)
        var canvas = try SyntheticPhoto.landscape(width: 1200, height: 800, seed: 9).pixels
        for row in 0..<400 {
            for column in 0..<400 {
                let from = (row * 400 + column) * 3, to = ((150 + row) * 1200 + 100 + column) * 3
                for channel in 0..<3 { canvas[to + channel] = astronaut.pixels[from + channel] }
            }
        }
        try ImageEncoder.write(try Image(width: 1200, height: 800, pixelFormat: .rgb8, pixels: canvas), to: path, as: .jpeg())
    }

    @Test("a face found in the pixels takes the name of the region over it; a region with no face stays; embeddings and scene labels are kept")
    func facesAndScenes() async throws {
        let vision = try #require(Self.vision, "the models are installed by scripts/install-models.sh")
        let library = try Library()
        defer { library.remove() }
        let path = library.folder + "/eileen.jpg"
        try Self.photoWithFace(at: path)
        // Her face is at about (240, 215)-(309, 284) of the 1200x800 photo: a region there, and one over the sky.
        let face = (x: 240.0 / 1200, y: 215.0 / 800, width: 70.0 / 1200, height: 70.0 / 800)
        try Data(sidecarXMP(date: "2020-01-01T10:00:00", city: nil, country: nil, people: [],
                            faces: [("Eileen", face.x, face.y, face.width, face.height), ("Sky", 0.8, 0.05, 0.1, 0.1)]).utf8)
            .write(to: URL(fileURLWithPath: path + ".xmp"))
        _ = try library.photo("landscape.jpg", seed: 3)
        let summary = try await PhotoIndexer(database: library.database, vision: vision).index(DirectoryPhotoLibrary(root: library.folder))
        #expect(summary.indexed == 2 && summary.failed == 0)

        let photo = try #require(try library.database.photo(atPath: path))
        let detected = photo.faces.filter { $0.isDetected && ($0.confidence ?? 0) > 0.5 }  // HOG also sees her mission patch, weakly
        #expect(detected.count == 1 && detected.first?.name == "Eileen", "\(photo.faces)")
        #expect(detected.first?.embedding?.count == 128)
        #expect(photo.faces.contains { $0.name == "Sky" && !$0.isDetected }, "the region no face was found in is kept")
        #expect(photo.people.contains("Eileen"))
        #expect(photo.embedding?.count == 1280 && photo.sceneLabels?.count == 5)
        let landscape = try #require(try library.database.photo(atPath: library.folder + "/landscape.jpg"))
        #expect(landscape.faces.isEmpty && landscape.embedding?.count == 1280)

        // One photo looked at alone gives what the index holds.
        let sight = try vision.look(atPhotoAt: path)
        #expect(sight.faces.map(\.name) == photo.faces.map(\.name) && sight.scene?.labels.map(\.name) == photo.sceneLabels)
    }

    @Test("with the text reader: the text read in the pixels and the subject in plain words are kept in the index and read back")
    func textAndSubject() async throws {
        let vision = try IndexVision.installed(readsText: true)
        let library = try Library()
        defer { library.remove() }
        let models = VisionModels.installed.folder
        for name in ["page.png", "chelsea.png"] {
            try AtomicFileWriter.write(try SystemFile(models + "/photos/" + name).readAll(), to: library.folder + "/" + name)
        }
        let summary = try await PhotoIndexer(database: library.database, vision: vision).index(DirectoryPhotoLibrary(root: library.folder))
        #expect(summary.indexed == 2 && summary.failed == 0)
        let page = try #require(try library.database.photo(atPath: library.folder + "/page.png"))
        let lines = try #require(page.text)
        #expect(lines.contains { $0.text.contains("segmentation") }, "\(lines.map(\.text))")
        #expect(lines.allSatisfy { $0.width > 0 && $0.height > 0 && $0.x + $0.width <= 1.0001 })
        #expect(try vision.look(atPhotoAt: library.folder + "/page.png").text == lines, "the index holds what the reader reads")
        let cat = try #require(try library.database.photo(atPath: library.folder + "/chelsea.png"))
        #expect(cat.sceneSubject == "cat" && cat.text?.isEmpty == true)
        // Without a text reader nothing is claimed: no lines, not an empty list.
        let plain = try Library()
        defer { plain.remove() }
        try AtomicFileWriter.write(try SystemFile(models + "/photos/page.png").readAll(), to: plain.folder + "/page.png")
        _ = try await PhotoIndexer(database: plain.database, vision: try IndexVision.installed()).index(DirectoryPhotoLibrary(root: plain.folder))
        #expect(try plain.database.photo(atPath: plain.folder + "/page.png")?.text == nil)
    }

    @Test("regions and detected faces are paired by overlap or by the region's centre; unmatched ones keep their source")
    func pairing() {
        let regions = [FaceBox(name: "Ana", x: 0.1, y: 0.1, width: 0.2, height: 0.2), FaceBox(name: "Ben", x: 0.6, y: 0.6, width: 0.05, height: 0.05)]
        let detected = [DetectedFace(x: 0.12, y: 0.12, width: 0.2, height: 0.2, confidence: 2),
                        DetectedFace(x: 0.55, y: 0.55, width: 0.2, height: 0.2, confidence: 1),  // holds Ben's small region's centre
                        DetectedFace(x: 0.8, y: 0.1, width: 0.1, height: 0.1, confidence: 0.5)]
        let faces = IndexVision.faces(regions: regions, detected: detected)
        #expect(faces.map(\.name) == ["Ana", "Ben", nil])
        #expect(faces.allSatisfy { $0.isDetected })
        #expect(IndexVision.faces(regions: regions, detected: []) == regions)
    }
}

extension IndexVision {
    /// The installed engines, as MemoraCore's `IndexVision.installed` hands them to the index (these
    /// tests do not import MemoraCore).
    static func installed(readsText: Bool = false) throws -> IndexVision {
        let engines = try InstalledVision(readsText: readsText)
        return IndexVision(faces: engines.faces, scenes: engines.scenes, text: engines.text)
    }
}
