import ImageKit
public import MemoraSystem
public import MetadataKit
public import PhotoVisionCore

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
        case scene(SceneAnalysis?)
    }

    /// Looks at the photo at `path` as the indexer does (`memora image faces`): the upright photo
    /// decoded at ``longestSide``, its faces found and named from its metadata's regions, its scene seen.
    public func look(atPhotoAt path: String) throws(PhotoIndexError) -> PhotoSight {
        try look(atPhotoAt: path, metadata: nil)
    }

    /// ``look(atPhotoAt:)`` with the photo's own metadata read already (nil: read here), so that a
    /// caller that has it (the on-device description) does not read the file's metadata twice.
    public func look(atPhotoAt path: String, metadata known: PhotoMetadata?) throws(PhotoIndexError) -> PhotoSight {
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
        var metadata = known ?? (try? MetadataReader.read(contentsOf: path))
        if let sidecar = DirectoryPhotoLibrary.sidecarCandidates(for: path).first(where: { FileSystem.statusIfPresent(of: $0)?.kind == .regular }),
           let extra = try? MetadataReader.read(contentsOf: sidecar) {
            metadata = metadata.map { PhotoAnalyzer.merge($0, sidecar: extra) } ?? extra
        }
        let regions = FaceBox.faces(declaredBy: metadata?.regions ?? [])
        // The faces are found on one core while the scene is seen on the other (each model runs on
        // one thread); then the text is read with every core (the reader's own threads). Read beside
        // the faces, the reader's batches ran one after the other (Dispatch gives a concurrentPerform
        // nested in another one thread): a 12 MP page took 1.24-1.45 s, and takes 1.10-1.25 s now
        // (`memora-bench`, scenario 22). The indexer, one photo per core, runs them in turn.
        let seen: [Seen]
        let lines: [TextLine]?
        do {
            let small = image
            seen = try ParallelWork.map(2, workers: text == nil ? 1 : 2) { (part: Int) throws(VisionError) -> Seen in
                part == 0 ? .faces(try faces?.faces(in: small)) : .scene(try scenes?.analyze(small))
            }
            lines = try large.map { image throws(VisionError) in try text?.readText(in: image) ?? [] }
        } catch {
            throw .vision(error)
        }
        var sight = PhotoSight(path: path, faces: regions)
        sight.text = lines
        for part in seen {
            switch part {
            case .faces(let detected): if let detected { sight.faces = Self.faces(regions: regions, detected: detected) }
            case .scene(let scene): sight.scene = scene
            }
        }
        return sight
    }
}
