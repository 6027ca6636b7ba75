import ImageKit
internal import MemoraSystem
import MetadataKit
public import PhotoVision

/// What the indexer sees in a photo's pixels (issue 18): faces with their embeddings, and the
/// scene. Without it (or without the models) the index keeps working as before: faces come from
/// the photo's metadata only, and there are no themes.
public struct IndexVision: Sendable {
    /// Finds faces (and their embeddings); nil: faces from metadata only.
    public var faces: (any FaceAnalyzing)?
    /// Sees the scene (features and labels); nil: no themes.
    public var scenes: (any SceneAnalyzing)?
    /// Reads the text in the photo; nil: no text.
    public var text: (any TextReading)?
    /// The longest side of the decode the models see (faces keep their share of the photo).
    public var longestSide: Int
    /// The longest side of the decode the text reader sees (small print needs more pixels).
    public var textLongestSide: Int

    /// Vision with these analyzers.
    public init(faces: (any FaceAnalyzing)?, scenes: (any SceneAnalyzing)?, text: (any TextReading)? = nil,
                longestSide: Int = 1600, textLongestSide: Int = 2000) {
        self.faces = faces
        self.scenes = scenes
        self.text = text
        self.longestSide = longestSide
        self.textLongestSide = textLongestSide
    }

    /// dlib's faces and MobileNetV2's scenes from the installed models (Docs/Models.md), each model
    /// run on one thread (the indexer runs one photo per core). Throws what is missing, with the
    /// command that installs it.
    ///
    /// With `readsText`, the text reader too (PP-OCRv4), running `textThreads` threads per model run
    /// (one photo at a time, as the description does, uses every core). With `thoroughFaces`, dlib's
    /// CNN face detector looks too (`DlibFaceAnalyzer.Options.cnnLongestSide` 800): the description
    /// counts people, and it finds turned and dim faces HOG misses, at a second or two a photo.
    public static func installed(models: VisionModels = .installed, readsText: Bool = false, textThreads: Int = 1,
                                 thoroughFaces: Bool = false) throws(VisionError) -> IndexVision {
        DlibFaceAnalyzer.setMatrixThreads(1)
        var options = PaddleTextReader.Options()
        options.threads = max(1, textThreads)
        // A description counts faces: dlib's CNN detector then looks too (at 800 pixels), for the faces HOG misses.
        let faces = DlibFaceAnalyzer.Options(scanThreads: 1, cnnLongestSide: thoroughFaces ? 800 : 0)
        return IndexVision(faces: try DlibFaceAnalyzer(models: models, options: faces),
                           scenes: try ONNXSceneAnalyzer(models: models, threads: 1),
                           text: readsText ? try PaddleTextReader(models: models, options: options) : nil)
    }

    /// The faces of a photo: those found in `image`, each named by the metadata region it overlaps
    /// (intersection over union at least 0.3, or the region's centre inside it), then the regions
    /// that overlap no face found (a face the detector missed, a profile, a pet) as they are.
    static func faces(regions: [FaceBox], detected: [DetectedFace]) -> [FaceBox] {
        var unused = regions
        var faces: [FaceBox] = []
        for face in detected {
            var box = FaceBox(name: nil, x: face.x, y: face.y, width: face.width, height: face.height,
                              confidence: face.confidence, embedding: face.embedding)
            let match = unused.indices.filter { box.isMarked(by: unused[$0]) }.max { box.overlap(unused[$0]) < box.overlap(unused[$1]) }
            if let match {
                box.name = unused[match].name
                unused.remove(at: match)
            }
            faces.append(box)
        }
        return faces + unused
    }
}

/// What the models see in one photo (``IndexVision/look(atPhotoAt:)``): its faces, named from
/// its metadata where a region overlaps them, and its scene.
public struct PhotoSight: Sendable, Hashable, Codable {
    /// The photo's path.
    public var path: String
    /// The faces found in the pixels (named where a metadata region overlaps them), then the
    /// metadata regions no face was found in.
    public var faces: [FaceBox]
    /// The scene, when a scene model ran.
    public var scene: SceneAnalysis?
    /// The lines of text read in the pixels, when a text reader ran (nil: none ran).
    public var text: [TextLine]? = nil
}

extension IndexVision {
    /// What one worker of ``look(atPhotoAt:)`` saw.
    private enum Seen {
        case faces([DetectedFace]?)
        case sceneAndText(SceneAnalysis?, [TextLine]?)
    }

    /// Looks at the photo at `path` as the indexer does (`memora image faces`): the upright photo
    /// decoded at ``longestSide``, its faces found and named from its metadata's regions, its scene seen.
    public func look(atPhotoAt path: String) throws(PhotoIndexError) -> PhotoSight {
        var image: Image
        let large: Image?
        do {
            let side = text == nil ? longestSide : max(longestSide, textLongestSide)
            image = try ImageDecoder.thumbnail(contentsOf: path, maxPixelSize: side, options: DecodingOptions(applyOrientation: true))
            large = text == nil ? nil : image
            if max(image.width, image.height) > longestSide { image = try image.resized(fittingLongSide: longestSide) }
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        // The photo's regions, completed by its XMP sidecar's, as the indexer reads them.
        var metadata = try? MetadataReader.read(contentsOf: path)
        if let sidecar = DirectoryPhotoLibrary.sidecarCandidates(for: path).first(where: { FileSystem.statusIfPresent(of: $0)?.kind == .regular }),
           let extra = try? MetadataReader.read(contentsOf: sidecar) {
            metadata = metadata.map { PhotoAnalyzer.merge($0, sidecar: extra) } ?? extra
        }
        let regions = MetadataFaceDetector().faces(regions: metadata?.regions ?? [], thumbnail: image)
        // With a text reader (the description's case, one photo at a time) the faces are found on one
        // core while the scene is seen and the text read on the others: dlib runs on one thread, and
        // its CNN's second look takes about as long as the text. The indexer, one photo per core, runs
        // them in turn.
        let seen: [Seen]
        do {
            let small = image
            seen = try ParallelWork.map(2, workers: text == nil ? 1 : 2) { (part: Int) throws(VisionError) -> Seen in
                part == 0 ? .faces(try faces?.faces(in: small))
                    : .sceneAndText(try scenes?.analyze(small), try large.map { image throws(VisionError) in try text?.readText(in: image) ?? [] })
            }
        } catch {
            throw .vision(error)
        }
        var sight = PhotoSight(path: path, faces: regions)
        for part in seen {
            switch part {
            case .faces(let detected): if let detected { sight.faces = Self.faces(regions: regions, detected: detected) }
            case .sceneAndText(let scene, let text): (sight.scene, sight.text) = (scene, text)
            }
        }
        return sight
    }
}
