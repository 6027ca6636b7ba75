public import MemoraSystem

/// Everything that can go wrong in PhotoVision: a code a program can switch on (an extensible set),
/// the file concerned, and a message a person can act on (a missing model names the script that
/// installs it). Module convention: one error type with codes (Docs/Architecture.md).
public struct VisionError: CodedError, Hashable {
    /// What kind of failure it is.
    public struct Code: ErrorCode {
        public var rawValue: String
        /// A code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A model file is not installed (run `scripts/install-models.sh`).
        public static let modelMissing = Code(rawValue: "model-missing")
        /// A model file is there but cannot be loaded (damaged, truncated, another version).
        public static let modelUnreadable = Code(rawValue: "model-unreadable")
        /// The inference runtime (ONNX Runtime) cannot be loaded.
        public static let runtimeUnavailable = Code(rawValue: "runtime-unavailable")
        /// The image cannot be used (empty, too small, wrong pixel layout).
        public static let invalidImage = Code(rawValue: "invalid-image")
        /// The model ran and failed.
        public static let inferenceFailed = Code(rawValue: "inference-failed")
        /// An argument is out of range.
        public static let invalidArgument = Code(rawValue: "invalid-argument")
        /// Embedding vectors that cannot be used: rows of different lengths, an empty row,
        /// a value that is not finite (NaN, infinity), a zero row under the cosine metric.
        public static let invalidEmbedding = Code(rawValue: "invalid-embedding")
    }

    /// What kind of failure it is.
    public var code: Code
    /// The file concerned (a model, a library), when there is one.
    public var path: String?
    /// What happened and what to do, in words; the path appears once.
    public var message: String

    /// An error with every field given.
    public init(_ code: Code, path: String? = nil, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    /// `file` is not in the models folder.
    public static func modelMissing(_ file: String, folder: String) -> VisionError {
        VisionError(.modelMissing, path: folder + "/" + file,
                    message: "the model \(file) is not installed in \(folder); run scripts/install-models.sh (or `make models`) "
                        + "from the Memora source folder, or point MEMORA_MODELS at a folder that holds it")
    }

    /// The model at `path` cannot be loaded, for `reason`.
    public static func modelUnreadable(_ path: String, reason: String) -> VisionError {
        VisionError(.modelUnreadable, path: path,
                    message: "\(path): the model cannot be loaded (\(reason)); run scripts/install-models.sh again to reinstall it")
    }

    /// The inference runtime at `path` cannot be loaded, for `reason`.
    public static func runtimeUnavailable(_ path: String, reason: String) -> VisionError {
        VisionError(.runtimeUnavailable, path: path,
                    message: "\(path): ONNX Runtime cannot be loaded (\(reason)); run scripts/install-models.sh again to reinstall it")
    }

    /// The image cannot be used, for `reason`.
    public static func invalidImage(_ reason: String) -> VisionError {
        VisionError(.invalidImage, message: "the image cannot be analysed: \(reason)")
    }

    /// The model failed while running, for `reason`.
    public static func inferenceFailed(_ reason: String) -> VisionError {
        VisionError(.inferenceFailed, message: "the model failed: \(reason)")
    }

    /// An argument is out of range.
    public static func invalidArgument(_ message: String) -> VisionError {
        VisionError(.invalidArgument, message: message)
    }

    /// Embedding vectors that cannot be used, for `reason` (which names the row).
    public static func invalidEmbedding(_ reason: String) -> VisionError {
        VisionError(.invalidEmbedding, message: "the embeddings cannot be used: \(reason)")
    }
}
