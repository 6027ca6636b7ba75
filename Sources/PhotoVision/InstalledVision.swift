public import PhotoVisionCore

/// The engines of the installed models (Docs/Models.md), made as the indexer and the description run
/// them: dlib's faces and MobileNetV2's scenes, each model on one thread (the indexer runs one photo
/// per core), and PP-OCRv6's text reader when asked. `IndexVision.installed` (MemoraCore) hands them
/// to the index.
public struct InstalledVision: Sendable {
    /// dlib's face pipeline.
    public let faces: DlibFaceAnalyzer
    /// MobileNetV2 on ONNX Runtime.
    public let scenes: ONNXSceneAnalyzer
    /// PP-OCRv6 on ONNX Runtime, when asked for.
    public let text: PaddleTextReader?

    /// Loads the engines; throws what is missing, with the command that installs it.
    ///
    /// With `readsText`, the text reader too, running `textThreads` threads per model run (one photo
    /// at a time, as the description does, uses every core). With `thoroughFaces`, dlib's CNN face
    /// detector looks too (``DlibFaceAnalyzer/Options/cnnLongestSide`` 800): the description counts
    /// people, and it finds turned and dim faces HOG misses, at a second or two a photo.
    public init(models: VisionModels = .installed, readsText: Bool = false, textThreads: Int = 1, thoroughFaces: Bool = false) throws(VisionError) {
        DlibFaceAnalyzer.setMatrixThreads(1)
        var options = PaddleTextReader.Options()
        options.threads = max(1, textThreads)
        faces = try DlibFaceAnalyzer(models: models, options: DlibFaceAnalyzer.Options(scanThreads: 1, cnnLongestSide: thoroughFaces ? 800 : 0))
        scenes = try ONNXSceneAnalyzer(models: models, threads: 1)
        text = readsText ? try PaddleTextReader(models: models, options: options) : nil
    }
}
