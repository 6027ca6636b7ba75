public import Foundation
public import PhotoIndex
public import PhotoVision
public import PhotoVisionCore

extension IndexVision {
    /// The index's vision from the installed models (`InstalledVision`): dlib's faces and
    /// MobileNetV2's scenes, each on one thread; with `readsText` PP-OCRv6's text reader on
    /// `textThreads`; with `thoroughFaces` dlib's CNN detector too. PhotoIndex itself builds on
    /// PhotoVisionCore alone; the engines come from here. Throws what is missing, with the command
    /// that installs it.
    public static func installed(models: VisionModels = .installed, readsText: Bool = false, textThreads: Int = 1,
                                 thoroughFaces: Bool = false) throws(VisionError) -> IndexVision {
        let engines = try InstalledVision(models: models, readsText: readsText, textThreads: textThreads, thoroughFaces: thoroughFaces)
        return IndexVision(faces: engines.faces, scenes: engines.scenes, text: engines.text)
    }

    /// The vision the on-device description uses (`BasicDescriptionGenerator`, `memora image look`):
    /// CenterFace counts the faces (no embeddings: a description needs how many, and the names come
    /// from the metadata and the index), MobileNetV2 sees the scene, and PP-OCRv6 reads the text on
    /// `threads` threads, every line it detects with a letter or a digit kept with its confidence
    /// (`TextLegibility` decides what is quoted, and the lines it does not quote still show a page's
    /// layout: a handwritten line is often read as one character), its detector on
    /// the photo at 1280 pixels (a 12 MP photo's text is found in a third of a second, not 0.6 s).
    /// When the detector is sure of no line, the lines it sees faintly (0.3) come back unread: a
    /// handwritten page's lines, which PP-OCRv6 is 0.3 to 0.5 sure of.
    public static func describing(models: VisionModels = .installed,
                                  threads: Int = ProcessInfo.processInfo.activeProcessorCount) throws(VisionError) -> IndexVision {
        var faces = CenterFaceDetector.Options()
        faces.minimumSize = 0.05
        var text = PaddleTextReader.Options()
        text.threads = max(1, threads)
        text.minConfidence = 0
        text.minCharacters = 1
        text.detectorMaxSide = 1280
        text.faintLineThreshold = 0.3
        return IndexVision(faces: try CenterFaceDetector(models: models, options: faces), scenes: try ONNXSceneAnalyzer(models: models, threads: 1),
                           text: try PaddleTextReader(models: models, options: text))
    }
}
