public import ImageKit

/// What a photo shows, as a scene model sees it: a feature vector to compare photos by (themes
/// are clusters of these) and the model's most likely labels.
public struct SceneAnalysis: Sendable, Hashable, Codable {
    /// One label and its probability.
    public struct Label: Sendable, Hashable, Codable {
        /// The class name (an ImageNet class: "seashore", "alp", "golden retriever").
        public var name: String
        /// The class's index in the model's output (ImageNet's order).
        public var classIndex: Int
        /// Its probability, 0...1 (softmax over every class).
        public var probability: Float

        /// A label.
        public init(name: String, classIndex: Int, probability: Float) {
            self.name = name
            self.classIndex = classIndex
            self.probability = probability
        }
    }

    /// The model's pooled features, scaled to length 1 (compare with the cosine distance).
    public var features: [Float]
    /// The most likely labels, most likely first.
    public var labels: [Label]
    /// The main subject in a person's words (``SceneNouns``), when the model is sure enough of one.
    public var subject: SceneSubject?

    /// An analysis.
    public init(features: [Float], labels: [Label], subject: SceneSubject? = nil) {
        self.features = features
        self.labels = labels
        self.subject = subject
    }

    /// The theme the labels name (``SceneThemes``): the one with the most probability among them,
    /// when it has at least ``SceneNouns/minimumProbability`` of it (the gate that names a subject).
    public var theme: String? {
        SceneThemes.theme(of: labels.map { ($0.classIndex, $0.probability) }, minimum: SceneNouns.minimumProbability)
    }
}

/// Something that sees what a photo shows. `ONNXSceneAnalyzer` (PhotoVision) runs MobileNetV2 with ONNX
/// Runtime; an Apple front end may plug in Vision's scene classification instead.
public protocol SceneAnalyzing: Sendable {
    /// The scene analysis of `image` (upright RGB or RGBA pixels of any size).
    func analyze(_ image: Image) throws(VisionError) -> SceneAnalysis
}
