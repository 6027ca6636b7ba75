import Foundation
internal import MemoraSystem
internal import ImageKit
internal import MetadataKit

/// Reads one photo into an ``IndexedPhoto``: hash, metadata (and its sidecar's), a 256-px
/// thumbnail for the quality score and the perceptual hash.
struct PhotoAnalyzer: Sendable {
    /// Faces and scenes from the pixels, when the models are there.
    var vision: IndexVision?
    static let thumbnailSize = 256

    /// The SHA-256 of `bytes`, lower-case hex.
    static func sha256(_ bytes: [UInt8]) -> String {
        Hex.string(SHA256Digest.hash(bytes))
    }

    /// The SHA-256 of the file at `path`, lower-case hex, read in pieces (memory does not grow with the file); nil when unreadable.
    static func sha256(contentsOf path: String) -> String? {
        (try? SHA256Digest.hash(contentsOf: path)).map(Hex.string)
    }

    /// Analyses `asset`; a file that cannot be read or decoded gives an entry with its error.
    func analyze(_ asset: PhotoAsset, id: String) -> IndexedPhoto {
        var photo = IndexedPhoto(
            id: id, path: asset.path, size: asset.size, modified: asset.modified, imageHash: "", kind: nil, takenAt: asset.modified,
            utcOffset: nil, dateTrusted: false, latitude: nil, longitude: nil, place: nil, width: nil, height: nil, orientation: 1,
            keywords: [], people: [], faces: [], quality: nil, perceptualHash: nil, rating: nil, favorite: false, embedding: nil, error: nil)
        // What decoding needs (a large JPEG up to its end-of-image marker, not a trailer after it);
        // the hash covers the whole file, the rest read in pieces: memory does not grow with the file.
        let bytes: [UInt8]
        do {
            bytes = try ImageDecoder.bytes(contentsOf: asset.path)
            photo.imageHash = Hex.string(try SHA256Digest.hash(contentsOf: asset.path, head: bytes))
        } catch {
            photo.error = "\(error)"
            return photo
        }
        photo.kind = PhotoFileKind.detect(bytes)
        var metadata = try? MetadataReader.scan(bytes, source: asset.path)  // libexif for EXIF: the fast scan
        if let sidecar = asset.sidecarPath, let extra = try? MetadataReader.read(contentsOf: sidecar) {
            metadata = metadata.map { Self.merge($0, sidecar: extra) } ?? extra
        }
        if let metadata {
            if let taken = metadata.dateTaken {
                photo.takenAt = taken.date
                photo.utcOffset = taken.utcOffsetSeconds
                photo.dateTrusted = true
            }
            photo.latitude = metadata.gps?.latitude
            photo.longitude = metadata.gps?.longitude
            photo.place = metadata.place?.displayName
            photo.keywords = metadata.keywords
            photo.people = metadata.people
            photo.rating = metadata.rating
            photo.favorite = (metadata.rating ?? 0) >= 5
        }
        do {
            let info = try ImageDecoder.info(of: bytes, source: asset.path)
            photo.width = info.uprightWidth
            photo.height = info.uprightHeight
            photo.orientation = info.orientation.rawValue
            let thumbnail = try ImageDecoder.thumbnail(bytes, source: asset.path, maxPixelSize: Self.thumbnailSize, options: DecodingOptions(applyOrientation: true))
            photo.faces = FaceBox.faces(declaredBy: metadata?.regions ?? [])
            if let vision {
                // One larger decode for the models (larger still for the text reader, and scaled down for
                // the others); a model that fails leaves the photo as metadata describes it.
                var image = try ImageDecoder.thumbnail(bytes, source: asset.path, maxPixelSize: vision.text == nil ? vision.longestSide : max(vision.longestSide, vision.textLongestSide),
                                                       options: DecodingOptions(applyOrientation: true))
                if let reader = vision.text {
                    photo.text = try? reader.readText(in: image)
                    if max(image.width, image.height) > vision.longestSide { image = try image.resized(fittingLongSide: vision.longestSide) }
                }
                if let detected = try? vision.faces?.faces(in: image) {
                    photo.faces = IndexVision.faces(regions: photo.faces, detected: detected)
                }
                if let scene = try? vision.scenes?.analyze(image) {
                    photo.embedding = scene.features
                    photo.sceneLabels = scene.labels.map(\.name)
                    photo.sceneTheme = scene.theme
                    photo.sceneSubject = scene.subject?.noun
                }
            }
            for name in photo.faces.compactMap(\.name) where !photo.people.contains(name) { photo.people.append(name) }
            photo.quality = QualityScore(thumbnail: thumbnail, pixelWidth: info.width, pixelHeight: info.height, faceCount: photo.faces.count).value
            photo.perceptualHash = PerceptualHash.hash(thumbnail)
        } catch {
            photo.error = "\(error)"
        }
        return photo
    }

    /// The photo's metadata completed by its XMP sidecar: lists are joined, missing fields filled.
    static func merge(_ photo: PhotoMetadata, sidecar: PhotoMetadata) -> PhotoMetadata {
        var merged = photo
        merged.keywords += sidecar.keywords.filter { !photo.keywords.contains($0) }
        merged.people += sidecar.people.filter { !photo.people.contains($0) }
        if merged.regions.isEmpty { merged.regions = sidecar.regions }
        merged.dateTaken = merged.dateTaken ?? sidecar.dateTaken
        merged.gps = merged.gps ?? sidecar.gps
        merged.place = merged.place ?? sidecar.place
        merged.rating = merged.rating ?? sidecar.rating
        return merged
    }
}
