import Foundation
import ImageKit
import Testing
import TestSupport
@testable import PhotoVision
import PhotoVisionCore

/// CenterFace, the description's face counter, on the real photos `scripts/install-models.sh`
/// installs (fixtures/astronaut.png, fixtures/camera.png), placed into pictures made here.
@Suite("Counting faces with CenterFace")
struct CenterFaceTests {
    static let models = VisionModels.installed

    @Test("the astronaut's face: one box around it, five landmarks inside it, no embedding; the same result twice")
    func astronaut() throws {
        let detector = try CenterFaceDetector(models: Self.models)
        let photo = try ImageDecoder.decode(contentsOf: Self.models.folder + "/fixtures/astronaut.png")
        let faces = try detector.faces(in: photo)
        try #require(faces.count == 1, "\(faces)")
        // dlib's HOG box for her face is (179, 83)-(266, 170) of 512 (Docs/Models.md).
        #expect(faces[0].overlap(x: 179.0 / 512, y: 83.0 / 512, width: 87.0 / 512, height: 87.0 / 512) > 0.4, "\(faces[0])")
        #expect(faces[0].landmarks.count == 5 && faces[0].embedding == nil && faces[0].confidence >= Double(detector.options.minimumScore))
        for point in faces[0].landmarks {
            #expect(point.x >= faces[0].x && point.x <= faces[0].x + faces[0].width && point.y >= faces[0].y && point.y <= faces[0].y + faces[0].height)
        }
        #expect(try detector.faces(in: photo) == faces, "deterministic")
    }

    @Test("a face in profile behind a camcorder, which dlib's HOG detector misses, is found")
    func profile() throws {
        let detector = try CenterFaceDetector(models: Self.models)
        let camera = try ImageDecoder.decode(contentsOf: Self.models.folder + "/fixtures/camera.png")
        #expect(try detector.faces(in: camera).count == 1)
    }

    @Test("three faces of three sizes in a wide picture are three; a landscape and a blank picture have none; tiny faces are left out when asked")
    func countsAndNone() throws {
        let detector = try CenterFaceDetector(models: Self.models)
        let astronaut = try ImageDecoder.decode(contentsOf: Self.models.folder + "/fixtures/astronaut.png").converted(to: .rgb8)
        let width = 1800, height = 900
        var canvas = try SyntheticPhoto.landscape(width: width, height: height, seed: 4).pixels
        for (size, left) in zip([512, 380, 300], [40, 700, 1300]) {
            FaceAnalyzerTests.paste(try astronaut.resized(width: size, height: size), into: &canvas, canvasWidth: width, x: left, y: 200)
        }
        let group = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: canvas)
        let faces = try detector.faces(in: group)
        #expect(faces.count == 3)
        #expect(try detector.faces(in: SyntheticPhoto.landscape(width: 1200, height: 800, seed: 2)).isEmpty)
        #expect(try detector.faces(in: try Image(width: 300, height: 200, fill: .white)).isEmpty)
        // The faces are about 50 to 90 pixels of a shorter side of 900: at a tenth of it, the small ones go.
        var options = CenterFaceDetector.Options()
        options.minimumSize = 0.1
        let large = faces.filter { max($0.width * Double(width), $0.height * Double(height)) >= 90 }
        #expect(!large.isEmpty && large.count < 3)
        #expect(try CenterFaceDetector(models: Self.models, options: options).faces(in: group) == large)
    }

    @Test("a missing model is a typed error naming the script; a bad option is refused")
    func errors() throws {
        let empty = try temporaryFolder("memora-no-centerface")
        #expect { _ = try CenterFaceDetector(models: VisionModels(folder: empty)) } throws: { ($0 as? VisionError)?.code == .modelMissing }
        var options = CenterFaceDetector.Options()
        options.minimumScore = 2
        #expect { _ = try CenterFaceDetector(models: Self.models, options: options) } throws: { ($0 as? VisionError)?.code == .invalidArgument }
    }
}
