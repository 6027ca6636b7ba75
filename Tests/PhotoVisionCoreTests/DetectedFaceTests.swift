import Testing
import PhotoVisionCore

@Suite("DetectedFace")
struct DetectedFaceTests {
    @Test("a box reaching outside the photo is cut to it, keeping everything else; a box wholly outside is dropped")
    func clamped() throws {
        let face = DetectedFace(x: -0.1, y: 0.8, width: 0.3, height: 0.4, confidence: 1.5, landmarks: [FacePoint(x: 0.1, y: 0.9)], embedding: [0.5])
        let inside = try #require(face.clampedToPhoto)
        #expect(abs(inside.x) < 1e-12 && abs(inside.y - 0.8) < 1e-12)
        #expect(abs(inside.width - 0.2) < 1e-12 && abs(inside.height - 0.2) < 1e-12)
        #expect(inside.confidence == 1.5 && inside.landmarks == face.landmarks && inside.embedding == [0.5])
        #expect(DetectedFace(x: 1.2, y: 0.1, width: 0.1, height: 0.1, confidence: 1).clampedToPhoto == nil)
        #expect(DetectedFace(x: 0.2, y: -0.5, width: 0.1, height: 0.4, confidence: 1).clampedToPhoto == nil)
        let whole = DetectedFace(x: 0.1, y: 0.1, width: 0.5, height: 0.5, confidence: 1)
        #expect(whole.clampedToPhoto == whole)
    }
}
