import Foundation
import ImageKit
import MemoraSystem
import Testing
import TestSupport
@testable import PhotoVision
import PhotoVisionCore

/// dlib's pipeline on a real face photo installed by `scripts/install-models.sh`
/// (fixtures/astronaut.png, NASA, public domain), placed into pictures made here.
@Suite("Faces with dlib")
struct FaceAnalyzerTests {
    static let models = VisionModels.installed
    static let analyzer: DlibFaceAnalyzer? = try? DlibFaceAnalyzer(models: models)

    static func astronaut() throws -> Image {
        try ImageDecoder.decode(contentsOf: models.folder + "/fixtures/astronaut.png")
    }

    /// `image` drawn at (`x`, `y`) of `canvas`.
    static func paste(_ image: Image, into canvas: inout [UInt8], canvasWidth: Int, x: Int, y: Int) {
        for row in 0..<image.height {
            for column in 0..<image.width {
                let from = (row * image.width + column) * 3, to = ((y + row) * canvasWidth + x + column) * 3
                canvas[to] = image.pixels[from]
                canvas[to + 1] = image.pixels[from + 1]
                canvas[to + 2] = image.pixels[from + 2]
            }
        }
    }

    static func distance(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
    }

    @Test("the astronaut's face: one confident box around her face, five landmarks inside it, a 128-float embedding; the same result twice")
    func oneFace() throws {
        let analyzer = try #require(Self.analyzer)
        let faces = try analyzer.faces(in: Self.astronaut())
        let face = try #require(faces.first)
        // Her face is at about (179, 83)-(266, 170) of the 512x512 photo.
        #expect(face.overlap(x: 179.0 / 512, y: 83.0 / 512, width: 88.0 / 512, height: 88.0 / 512) > 0.6, "\(face)")
        #expect(face.confidence > 1)
        #expect(face.landmarks.count == 5 && face.landmarks.allSatisfy { $0.x > face.x && $0.x < face.x + face.width && $0.y > face.y && $0.y < face.y + face.height })
        #expect(face.embedding?.count == 128)
        #expect(faces.dropFirst().allSatisfy { $0.confidence < 0.5 }, "the mission patch on her suit is a weak hit: \(faces)")
        let stricter = try DlibFaceAnalyzer(models: Self.models, options: DlibFaceAnalyzer.Options(minimumConfidence: 0.5, computesEmbeddings: false))
        #expect(try stricter.faces(in: Self.astronaut()).count == 1, "a higher minimum score leaves the patch out")
        let again = try analyzer.faces(in: Self.astronaut())
        #expect(again.map(\.landmarks) == faces.map(\.landmarks) && again.map(\.confidence) == faces.map(\.confidence))
        #expect(Self.distance(again[0].embedding ?? [], face.embedding ?? []) < 1e-4, "the same (to BLAS's rounding)")
    }

    @Test("a face half hidden (or its mouth covered), which HOG misses, is found when the CNN detector looks too; a photo without faces stays without")
    func cnnFindsHiddenFaces() throws {
        let hog = try DlibFaceAnalyzer(models: Self.models, options: DlibFaceAnalyzer.Options(computesEmbeddings: false))
        let thorough = try DlibFaceAnalyzer(models: Self.models, options: DlibFaceAnalyzer.Options(computesEmbeddings: false, cnnLongestSide: 800))
        let astronaut = try Self.astronaut()
        // Her face is at about (179, 83)-(266, 170): cover its right half, then its mouth, with a dark block.
        for (left, top) in [(223, 83), (179, 135)] {
            var pixels = astronaut.pixels
            for y in top..<171 { for x in left..<267 { for channel in 0..<3 { pixels[(y * astronaut.width + x) * 3 + channel] = 30 } } }
            let hidden = try Image(width: astronaut.width, height: astronaut.height, pixelFormat: .rgb8, pixels: pixels)
            #expect(try hog.faces(in: hidden).filter { $0.confidence > 0.5 }.isEmpty, "HOG misses it (else the test shows nothing)")
            let found = try thorough.faces(in: hidden).filter { $0.confidence > 0.5 }
            #expect(found.count == 1 && found[0].overlap(x: 179.0 / 512, y: 83.0 / 512, width: 88.0 / 512, height: 88.0 / 512) > 0.4, "\(found)")
        }
        #expect(try thorough.faces(in: try SyntheticPhoto.landscape(width: 640, height: 480, seed: 3)).isEmpty, "no face invented in a landscape")
        // HOG's weak hit on the mission patch of her suit (under 0.3) is not confirmed by the CNN: one face, hers.
        #expect(try hog.faces(in: astronaut).contains { $0.confidence < DlibFaceAnalyzer.weakScore }, "HOG's weak hit is there to drop")
        let confirmed = try thorough.faces(in: astronaut)
        #expect(confirmed.count == 1 && confirmed[0].overlap(x: 179.0 / 512, y: 83.0 / 512, width: 88.0 / 512, height: 88.0 / 512) > 0.6, "\(confirmed)")
        // A missing CNN model is refused when the analyzer is made, before any photo is looked at.
        #expect(throws: VisionError.self) {
            _ = try DlibFaceAnalyzer(models: VisionModels(folder: "/nonexistent"), options: DlibFaceAnalyzer.Options(cnnLongestSide: 800))
        }
    }

    @Test("three copies of one face at three sizes in a larger picture: found where they were put, and the same person (distance under 0.6)")
    func sameFaceThreeTimes() throws {
        let analyzer = try #require(Self.analyzer)
        let astronaut = try Self.astronaut()
        let width = 1800, height = 900
        var canvas = try SyntheticPhoto.landscape(width: width, height: height, seed: 4).pixels
        let sizes = [512, 380, 300], lefts = [40, 700, 1300]  // faces of 78, 58 and 46 pixels once reduced to 1600
        for (size, left) in zip(sizes, lefts) {
            Self.paste(try astronaut.resized(width: size, height: size), into: &canvas, canvasWidth: width, x: left, y: 200)
        }
        let image = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: canvas)
        let faces = try analyzer.faces(in: image).filter { $0.confidence > 0.5 }
        #expect(faces.count == 3, "\(faces)")
        for (size, left) in zip(sizes, lefts) {
            let scale = Double(size) / 512
            let expected = (x: (Double(left) + 179 * scale) / Double(width), y: (200 + 83 * scale) / Double(height),
                            width: 88 * scale / Double(width), height: 88 * scale / Double(height))
            #expect(faces.contains { $0.overlap(x: expected.x, y: expected.y, width: expected.width, height: expected.height) > 0.5 },
                    "the face pasted at \(left) at \(size) px")
        }
        let embeddings = faces.compactMap(\.embedding)
        for a in embeddings.indices { for b in embeddings.indices where b > a { #expect(Self.distance(embeddings[a], embeddings[b]) < 0.6) } }
    }

    @Test("a scan split across threads finds what dlib's own call finds: the same boxes, scores and order, weak hits included, at both sizes")
    func scanOnThreads() throws {
        let astronaut = try Self.astronaut()
        let width = 1400, height = 700
        var canvas = try SyntheticPhoto.landscape(width: width, height: height, seed: 9).pixels
        for (size, left) in zip([420, 300, 200], [20, 520, 1000]) {
            Self.paste(try astronaut.resized(width: size, height: size), into: &canvas, canvasWidth: width, x: left, y: 120)
        }
        let group = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: canvas)
        let detector = try Dlib.Detector()
        for (image, upsample) in [(group, 0), (group, 1), (astronaut, 1), (try astronaut.resized(width: 97, height: 61), 2)] {
            // A low threshold keeps many weak, overlapping hits: their order and suppression must match too.
            let reference = try detector.detect(image, upsample: upsample, adjustThreshold: -0.6, threads: 1)
            #expect(reference.count >= (image.width > 500 ? 3 : 0), "\(image.width)x\(image.height): \(reference.count) hits")
            for threads in [2, 3, 8] {
                let split = try detector.detect(image, upsample: upsample, adjustThreshold: -0.6, threads: threads)
                #expect(split.map { [$0.left, $0.top, $0.right, $0.bottom] } == reference.map { [$0.left, $0.top, $0.right, $0.bottom] }
                        && split.map(\.confidence) == reference.map(\.confidence),
                        "\(image.width)x\(image.height), upsample \(upsample), \(threads) threads")
            }
        }
        #expect(throws: VisionError.self) { _ = try DlibFaceAnalyzer(models: Self.models, options: DlibFaceAnalyzer.Options(scanThreads: 65)) }
    }

    @Test("a small face is found by the doubled scan; a landscape has no face; without embeddings none is computed")
    func smallFacesAndNone() throws {
        let analyzer = try #require(Self.analyzer)
        let small = try Self.astronaut().resized(width: 300, height: 300)  // a face of about 52 pixels
        #expect(try analyzer.faces(in: small).contains { $0.confidence > 0.5 })
        #expect(try analyzer.faces(in: SyntheticPhoto.landscape(width: 1200, height: 800, seed: 2)).isEmpty)
        let quick = try DlibFaceAnalyzer(models: Self.models, options: DlibFaceAnalyzer.Options(computesEmbeddings: false))
        let faces = try quick.faces(in: Self.astronaut())
        #expect(!faces.isEmpty && faces.allSatisfy { $0.embedding == nil })
    }

    @Test("several threads share one analyzer and get what one thread gets (embeddings to BLAS's rounding, which depends on its thread count, a process setting other tests change)")
    func concurrent() async throws {
        let analyzer = try #require(Self.analyzer)
        let astronaut = try Self.astronaut()
        let expected = try analyzer.faces(in: astronaut)
        let results = await withTaskGroup(of: [DetectedFace]?.self) { group in
            for _ in 0..<4 { group.addTask { try? analyzer.faces(in: astronaut) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 4)
        for result in results {
            let faces = try #require(result)
            #expect(faces.map { [$0.x, $0.y, $0.width, $0.height, $0.confidence] } == expected.map { [$0.x, $0.y, $0.width, $0.height, $0.confidence] })
            #expect(faces.map(\.landmarks) == expected.map(\.landmarks))
            for (face, reference) in zip(faces, expected) {
                #expect(Self.distance(face.embedding ?? [], reference.embedding ?? []) < 1e-4)
            }
        }
    }

    @Test("missing and damaged models: typed errors that name the file and the script; a 1x1 image has no face")
    func failures() throws {
        let folder = try temporaryFolder()
        defer { try? FileSystem.removeTree(folder) }
        do {
            _ = try DlibFaceAnalyzer(models: VisionModels(folder: folder))
            Issue.record("missing models were accepted")
        } catch {
            #expect(error.code == .modelMissing && error.message.contains("shape_predictor_5_face_landmarks.dat"), "\(error.message)")
        }
        try FileSystem.makeFolder(folder + "/dlib")
        let landmarks = try SystemFile(Self.models.path(of: .faceLandmarks)).readAll()
        try AtomicFileWriter.write(Array(landmarks.prefix(landmarks.count / 2)), to: folder + "/dlib/shape_predictor_5_face_landmarks.dat")
        do {
            _ = try DlibFaceAnalyzer(models: VisionModels(folder: folder), options: DlibFaceAnalyzer.Options(computesEmbeddings: false))
            Issue.record("a truncated model was accepted")
        } catch {
            #expect(error.code == .modelUnreadable && error.message.contains("install-models.sh"), "\(error.message)")
        }
        let analyzer = try #require(Self.analyzer)
        #expect(try analyzer.faces(in: Image(width: 1, height: 1, pixelFormat: .rgb8, pixels: [0, 0, 0])).isEmpty)
    }
}
