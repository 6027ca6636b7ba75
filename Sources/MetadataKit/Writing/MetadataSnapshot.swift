public import Foundation

/// What a write replaced, so ``CaptionWriter/restore(_:to:options:)`` can put it back exactly,
/// including "there was no caption".
///
/// A snapshot is persisted (in Memora's history), so its encoding is a versioned format:
/// ``encoded()`` writes format ``formatVersion``; ``init(decoding:source:)`` reads it and the
/// unversioned snapshots of earlier releases, and refuses a newer format with a
/// ``MetadataError`` rather than guess.
public struct MetadataSnapshot: Sendable, Hashable, Codable {
    /// The format ``encoded()`` writes.
    public static let formatVersion = 1

    /// The file the snapshot was taken from.
    public var path: String
    /// What was kept.
    public var kept: Kept
    /// A fingerprint of the image data, so a restore never lands on another picture.
    public var imageDigest: Data
    /// When the write happened.
    public var date: Date
    /// After a location strip: location fields the file still holds, named for a person (a check
    /// after the write; empty when the strip removed everything). Empty after any other write. Not
    /// stored with the snapshot: it describes the file as the write left it.
    public var locationLeft: [String] = []
    /// After a location strip: the blocks it removed location from ("EXIF GPS", "XMP location",
    /// "IPTC location", "Ricoh RMETA block (APP5)"). Empty after any other write, and not stored.
    public var locationRemoved: [String] = []

    /// What a write kept of the file, by container format.
    public enum Kept: Sendable, Hashable {
        /// Nothing: the write changed nothing (a location strip with no location to remove).
        case nothing
        /// A JPEG's metadata segments and trailers.
        case jpeg(JPEGMetadata)
        /// A PNG's metadata chunks.
        case png(PNGMetadata)
        /// The whole original file (WebP, HEIF: their metadata is spread through the structure).
        case wholeFile(Data)
        /// The original bytes of the ranges the write overwrote and the original length (TIFF/DNG,
        /// whose edits patch IFD0 in place and append: a few KB instead of the whole file).
        case patches(FilePatches)
        /// A snapshot from before format 1, whose meaning depends on the file's format; it is
        /// interpreted when restored.
        case unversioned([UnversionedSegment])
    }

    /// A JPEG's metadata: the EXIF, XMP and Photoshop (IPTC) segments byte for byte, and its trailers.
    public struct JPEGMetadata: Sendable, Hashable, Codable {
        /// The metadata segments, in file order.
        public var segments: [JPEGSegment]
        /// The FotoStation trailer after the end of the image, when there was one.
        public var fotoStationTrailer: Data?
        /// The AFCP trailer, when there was one.
        public var afcpTrailer: Data?

        /// The metadata of a JPEG.
        public init(segments: [JPEGSegment], fotoStationTrailer: Data? = nil, afcpTrailer: Data? = nil) {
            self.segments = segments
            self.fotoStationTrailer = fotoStationTrailer
            self.afcpTrailer = afcpTrailer
        }
    }

    /// One saved JPEG segment.
    public struct JPEGSegment: Sendable, Hashable, Codable {
        /// The marker (0xE1 for EXIF and XMP, 0xED for Photoshop).
        public var marker: UInt8
        /// The payload, as it was.
        public var payload: Data
        /// Its index among the file's segments, so a restore puts it back in place.
        public var position: Int

        /// A saved segment.
        public init(marker: UInt8, payload: Data, position: Int) {
            self.marker = marker
            self.payload = payload
            self.position = position
        }
    }

    /// A PNG's metadata: the standard `eXIf` and XMP `iTXt` chunks and ImageMagick's profile chunks.
    public struct PNGMetadata: Sendable, Hashable, Codable {
        /// The `eXIf` chunk's data.
        public var exif: Data?
        /// The XMP `iTXt` chunk's data.
        public var xmp: Data?
        /// The legacy profile chunks.
        public var profiles: [PNGProfileChunk]

        /// The metadata of a PNG.
        public init(exif: Data?, xmp: Data?, profiles: [PNGProfileChunk]) {
            self.exif = exif
            self.xmp = xmp
            self.profiles = profiles
        }
    }

    /// A legacy profile chunk (`zTXt`/`tEXt` "Raw profile type …").
    public struct PNGProfileChunk: Sendable, Hashable, Codable {
        /// Which profile it carries.
        public enum Profile: String, Sendable, Hashable, Codable {
            /// XMP.
            case xmp
            /// EXIF.
            case exif
            /// IPTC.
            case iptc
        }

        /// The profile.
        public var profile: Profile
        /// The chunk's type followed by its data.
        public var chunk: Data
        /// Its index among the file's chunks.
        public var position: Int

        /// A saved profile chunk.
        public init(profile: Profile, chunk: Data, position: Int) {
            self.profile = profile
            self.chunk = chunk
            self.position = position
        }
    }

    /// The bytes a write overwrote in a file it otherwise only appended to or cut back.
    public struct FilePatches: Sendable, Hashable, Codable {
        /// The file's length before the write.
        public var originalLength: Int
        /// The original bytes, by offset, of every range the write overwrote (or cut off).
        public var ranges: [Patch]

        /// One saved range.
        public struct Patch: Sendable, Hashable, Codable {
            /// Where it starts.
            public var offset: Int
            /// The original bytes.
            public var bytes: Data

            /// A saved range.
            public init(offset: Int, bytes: Data) {
                self.offset = offset
                self.bytes = bytes
            }
        }

        /// Patches as saved.
        public init(originalLength: Int, ranges: [Patch]) {
            self.originalLength = originalLength
            self.ranges = ranges
        }

        /// Patches from the overwritten `ranges` of `original` (merged, clipped to its length).
        init(original: [UInt8], overwritten ranges: [Range<Int>]) {
            self.init(originalLength: original.count, overwritten: ranges) { Array(original[$0]) }
        }

        /// Patches from the overwritten `ranges` of an original of `originalLength` bytes, whose bytes `original` gives.
        init(originalLength: Int, overwritten ranges: [Range<Int>], original: (Range<Int>) -> [UInt8]) {
            let merged = CaptionWriter.mergedRanges(ranges.map { max(0, $0.lowerBound)..<min(originalLength, $0.upperBound) })
            self.originalLength = originalLength
            self.ranges = merged.map { Patch(offset: $0.lowerBound, bytes: Data(original($0))) }
        }

        /// The file before the write, from the file after it; nil when the patches do not fit it
        /// (a range outside the original length, or bytes past the current end that no range restores).
        func applied(to current: [UInt8]) -> [UInt8]? {
            // Bytes past the current end can only come from the patches: a length beyond that is damage
            // (or a forged history), refused before anything is allocated for it.
            guard originalLength >= 0, originalLength <= current.count + ranges.reduce(0, { $0 + $1.bytes.count }) else { return nil }
            var result = Array(current.prefix(originalLength))
            var covered = result.count..<result.count
            if result.count < originalLength { result += [UInt8](repeating: 0, count: originalLength - result.count) }
            for patch in ranges.sorted(by: { $0.offset < $1.offset }) {
                guard patch.offset >= 0, patch.offset + patch.bytes.count <= originalLength else { return nil }
                result.replaceSubrange(patch.offset..<(patch.offset + patch.bytes.count), with: patch.bytes)
                if patch.offset <= covered.upperBound { covered = covered.lowerBound..<max(covered.upperBound, patch.offset + patch.bytes.count) }
            }
            // Bytes the write cut off must all come back from the patches.
            guard covered.upperBound >= originalLength || current.count >= originalLength else { return nil }
            return result
        }

        /// What restoring these patches onto `current` replaces: the same ranges of `current`, and
        /// anything past the original length, so the restore can be undone.
        func inverse(current: [UInt8]) -> FilePatches {
            let overwritten = ranges.map { $0.offset..<($0.offset + $0.bytes.count) } + [originalLength..<max(originalLength, current.count)]
            return FilePatches(original: current, overwritten: overwritten)
        }
    }

    /// A saved piece of a snapshot from before format 1: a JPEG marker (0 for a FotoStation
    /// trailer, 1 for an AFCP one), a PNG chunk kind (0 eXIf, 1 XMP, 2–4 legacy XMP, EXIF and
    /// IPTC profiles) or 0xFF for a whole file.
    public struct UnversionedSegment: Sendable, Hashable, Codable {
        /// What the payload is (see the type's description).
        public var marker: UInt8
        /// The payload.
        public var payload: Data
        /// Where it was, when that mattered.
        public var position: Int?
    }

    /// A snapshot of `path`.
    public init(path: String, kept: Kept, imageDigest: Data, date: Date = Date()) {
        self.path = path
        self.kept = kept
        self.imageDigest = imageDigest
        self.date = date
    }

    /// The snapshot of a write that changed nothing.
    public static func unchanged(_ path: String) -> MetadataSnapshot {
        MetadataSnapshot(path: path, kept: .nothing, imageDigest: Data())
    }

    /// Whether the write this snapshot belongs to changed nothing.
    public var isUnchanged: Bool {
        if case .nothing = kept { true } else { false }
    }

    /// The snapshot in format ``formatVersion`` (JSON).
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain values cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Reads a snapshot written by ``encoded()`` or by an earlier release.
    public init(decoding data: Data, source: String = "snapshot") throws(MetadataError) {
        do {
            self = try JSONDecoder().decode(MetadataSnapshot.self, from: data)
        } catch let DecodingError.dataCorrupted(context) where context.debugDescription.hasPrefix(Self.newerFormat) {
            throw .unsupportedFormat(source: source, reason: context.debugDescription)
        } catch {
            throw .corrupt(source: source, reason: "the saved snapshot is damaged and cannot be read")
        }
    }

    private static let newerFormat = "the snapshot is in format"

    private enum CodingKeys: String, CodingKey {
        case version, path, kind, jpeg, png, file, patches, segments, imageDigest, date
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        path = try container.decode(String.self, forKey: .path)
        imageDigest = try container.decode(Data.self, forKey: .imageDigest)
        // Format 1 writes ISO 8601; unversioned snapshots used either ISO 8601 or Foundation's seconds since 2001.
        if let text = try? container.decode(String.self, forKey: .date) {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            guard let parsed = formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text) else {
                throw DecodingError.dataCorruptedError(forKey: .date, in: container, debugDescription: "the date \(text) is not ISO 8601")
            }
            date = parsed
        } else {
            date = Date(timeIntervalSinceReferenceDate: try container.decode(Double.self, forKey: .date))
        }
        guard let version = try container.decodeIfPresent(Int.self, forKey: .version) else {
            kept = .unversioned(try container.decode([UnversionedSegment].self, forKey: .segments))
            return
        }
        guard version <= Self.formatVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container,
                debugDescription: "\(Self.newerFormat) \(version), newer than this version of Memora reads (\(Self.formatVersion)); update Memora to restore it")
        }
        switch try container.decode(String.self, forKey: .kind) {
        case "nothing": kept = .nothing
        case "jpeg": kept = .jpeg(try container.decode(JPEGMetadata.self, forKey: .jpeg))
        case "png": kept = .png(try container.decode(PNGMetadata.self, forKey: .png))
        case "whole-file": kept = .wholeFile(try container.decode(Data.self, forKey: .file))
        case "patches": kept = .patches(try container.decode(FilePatches.self, forKey: .patches))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: container, debugDescription: "unknown snapshot kind \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(imageDigest, forKey: .imageDigest)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        try container.encode(formatter.string(from: date), forKey: .date)
        switch kept {
        case .unversioned(let segments):
            // Kept as it was read: its meaning is only known when it is restored.
            try container.encode(segments, forKey: .segments)
            return
        case .nothing:
            try container.encode("nothing", forKey: .kind)
        case .jpeg(let jpeg):
            try container.encode("jpeg", forKey: .kind)
            try container.encode(jpeg, forKey: .jpeg)
        case .png(let png):
            try container.encode("png", forKey: .kind)
            try container.encode(png, forKey: .png)
        case .wholeFile(let file):
            try container.encode("whole-file", forKey: .kind)
            try container.encode(file, forKey: .file)
        case .patches(let patches):
            try container.encode("patches", forKey: .kind)
            try container.encode(patches, forKey: .patches)
        }
        try container.encode(Self.formatVersion, forKey: .version)
    }

    /// The snapshot's contents for a file of `format`, reading an unversioned snapshot the way
    /// the release that wrote it meant it.
    func resolved(for format: Container) -> Kept {
        guard case .unversioned(let segments) = kept else { return kept }
        if segments.isEmpty && imageDigest.isEmpty { return .nothing }
        switch format {
        case .jpeg:
            return .jpeg(JPEGMetadata(
                segments: segments.filter { $0.marker > 1 }.map { JPEGSegment(marker: $0.marker, payload: $0.payload, position: $0.position ?? Int.max) },
                fotoStationTrailer: segments.first { $0.marker == 0 }?.payload,
                afcpTrailer: segments.first { $0.marker == 1 }?.payload))
        case .png:
            let profiles: [PNGProfileChunk] = segments.compactMap { segment in
                let profile: PNGProfileChunk.Profile? = switch segment.marker { case 2: .xmp; case 3: .exif; case 4: .iptc; default: nil }
                return profile.map { PNGProfileChunk(profile: $0, chunk: segment.payload, position: segment.position ?? 1) }
            }
            return .png(PNGMetadata(exif: segments.first { $0.marker == 0 }?.payload, xmp: segments.first { $0.marker == 1 }?.payload, profiles: profiles))
        case .other:
            return segments.first { $0.marker == 0xFF }.map { .wholeFile($0.payload) } ?? .unversioned(segments)
        }
    }

    /// The container families a snapshot distinguishes.
    enum Container { case jpeg, png, other }
}
