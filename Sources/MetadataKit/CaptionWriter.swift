import Foundation
internal import MemoraSystem

/// What to write.
public struct CaptionUpdate: Sendable, Hashable {
    /// The caption (a description of the photo) for XMP `dc:description`, EXIF `ImageDescription`
    /// and IPTC `Caption-Abstract`.
    public var caption: String
    /// Short alternative text for `Iptc4xmpCore:AltTextAccessibility`, when given.
    public var altText: String?

    /// Creates an update.
    public init(caption: String, altText: String? = nil) {
        self.caption = caption
        self.altText = altText
    }
}

/// What a write does.
enum MetadataOperation: Sendable {
    /// Sets the caption (and alt text) everywhere the format carries it.
    case caption(CaptionUpdate)
    /// Removes GPS from EXIF and XMP, and the location fields from XMP and IPTC; the plan says
    /// which blocks hold any, so the others are not touched (not even re-serialised).
    case stripLocation(StripPlan)

    /// A location strip before the file is looked at: every block, narrowed by `edit` to those that hold a location.
    static let stripAllLocation = MetadataOperation.stripLocation(.init(exif: true, xmp: true, iptc: true))

    /// Which metadata blocks of a file hold location data.
    struct StripPlan: Sendable {
        var exif: Bool
        var xmp: Bool
        var iptc: Bool
        var isEmpty: Bool { !exif && !xmp && !iptc }
    }

    /// The XMP properties a location strip removes (`*`: every key with that prefix).
    static let xmpLocationKeys = [
        "Xmp.exif.GPS*", "Xmp.iptcExt.LocationCreated*", "Xmp.iptcExt.LocationShown*", "Xmp.iptc.Location",
        "Xmp.iptc.CountryCode", "Xmp.photoshop.City", "Xmp.photoshop.State", "Xmp.photoshop.Country",
    ]
    /// The IPTC datasets a location strip removes: content location code and name, city,
    /// sub-location, province/state, country code and name.
    static let iptcLocationDataSets: [UInt8] = [26, 27, 90, 92, 95, 100, 101]
    static let iptcLocationKeys: Set<String> = [
        "Iptc.Application2.LocationCode", "Iptc.Application2.LocationName", "Iptc.Application2.City", "Iptc.Application2.SubLocation",
        "Iptc.Application2.ProvinceState", "Iptc.Application2.CountryCode", "Iptc.Application2.CountryName",
    ]

    /// Whether a tag is one the operation may change (or remove).
    func mayChange(_ tag: MetadataTag) -> Bool {
        switch self {
        case .caption:
            return false  // handled by the caption rules in `verify`
        case .stripLocation:
            if tag.key.hasPrefix("Exif.GPSInfo.") || tag.key == "Exif.Image.GPSTag" || Self.iptcLocationKeys.contains(tag.key) { return true }
            if ["Exif.Image.XMLPacket", "Exif.Image.IPTCNAA", "Exif.Image.ImageResources"].contains(tag.key) { return true }
            return Self.xmpLocationKeys.contains { key in
                key.hasSuffix("*") ? tag.key.hasPrefix(String(key.dropLast())) : (tag.key == key || tag.key.hasPrefix(key + "/"))
            }
        }
    }
}

extension MetadataOperation {
    /// The XMP edits; nil when the packet should be left alone (a strip on a file without XMP).
    func xmpEdits(hasPacket: Bool) -> [XMPEdit]? {
        switch self {
        case .caption(let update):
            var edits: [XMPEdit] = [.setLanguageItem(key: CaptionWriter.descriptionKey, language: "x-default", value: update.caption)]
            if let altText = update.altText { edits.append(.setLanguageItem(key: CaptionWriter.altTextKey, language: "x-default", value: altText)) }
            return edits
        case .stripLocation(let plan):
            return hasPacket && plan.xmp ? Self.xmpLocationKeys.map { XMPEdit.remove(key: $0) } : nil
        }
    }

    /// Edits an existing EXIF block (or returns a new one to create; nil leaves the file without EXIF).
    func editEXIF(_ existing: [UInt8]?, source: String, oldCaptions: Set<String>, strictOrder: Bool = false) throws(MetadataError) -> TIFFBlock? {
        if case .stripLocation(let plan) = self, !plan.exif, !strictOrder { return nil }
        guard let existing else {
            guard case .caption(let update) = self else { return nil }
            return try TIFFBlock(JPEGCaptionEditor.newEXIF(caption: Array(update.caption.utf8) + [0]), source: source)
        }
        var tiff = try TIFFBlock(existing, source: source)
        if let problem = tiff.ifd0Problem(strictOrder: strictOrder) {
            throw .corrupt(source: source, reason: strictOrder ? problem : "its EXIF block is damaged: \(problem)")
        }
        switch self {
        case .caption(let update):
            tiff.setIFD0(tag: 0x010E, type: 2, value: Array(update.caption.utf8) + [0])
            for tag: UInt16 in [0x9C9C, 0x9C9B] {  // XPComment, XPTitle: kept in step when they held the old caption
                if let value = tiff.value(ofIFD0Tag: tag), oldCaptions.contains(TextEncodings.decodeUCS2LE(value).trimmingCharacters(in: .whitespacesAndNewlines)) {
                    tiff.setIFD0(tag: tag, type: 1, value: TextEncodings.encodeUCS2LE(update.caption))
                }
            }
        case .stripLocation(let plan):
            if plan.exif { tiff.stripGPS() }
        }
        // An IPTC block inside IFD0 (tag 33723, IPTC-NAA, as some scanners and old Photoshop
        // versions put it in a JPEG's EXIF) is one more copy. In TIFF files it is the main IPTC
        // block, edited by TIFFCaptionEditor. In a record whose declared character set cannot
        // hold the caption (ISO 2022), the old caption dataset is removed instead, so no copy
        // contradicts the others; a copy that cannot be parsed is left as it is rather than
        // refusing the whole write.
        if !strictOrder, let iim = tiff.value(ofIFD0Tag: TIFFCaptionEditor.iptcTag) {
            let edited: [UInt8]?
            if case .caption(let update) = self {
                edited = try? TIFFCaptionEditor.captioned(iim, update: update, source: source, droppingUnwritable: true)
            } else {
                edited = (try? editIIM(iim, source: source)) ?? nil
            }
            if let edited { tiff.setIPTC(edited) }
        }
        return tiff
    }

    /// Edits an IIM block (`nil` when the file had none); returns nil to leave it absent.
    func editIIM(_ iim: [UInt8]?, source: String) throws(MetadataError) -> [UInt8]? {
        switch self {
        case .caption(let update):
            return try TIFFCaptionEditor.captioned(iim ?? [], update: update, source: source)
        case .stripLocation(let plan):
            guard let iim, plan.iptc else { return nil }
            var record = try IPTCRecord(iim, source: source)
            record.dataSets.removeAll { $0.record == 2 && Self.iptcLocationDataSets.contains($0.number) }
            return record.bytes
        }
    }

    /// A Photoshop resource block (JPEG APP13, a PNG's legacy IPTC profile) with its IPTC-IIM
    /// resources edited and a stored IPTCDigest kept current when it was. A caption write adds an
    /// IIM resource when there is none and `create` is set. Nil when there is no block to write.
    func editPhotoshopIPTC(_ raw: [UInt8]?, create: Bool, source: String) throws(MetadataError) -> [UInt8]? {
        let isCaption = if case .caption = self { true } else { false }
        guard raw != nil || (create && isCaption) else { return nil }
        var resources = try raw.map { raw throws(MetadataError) in try PhotoshopResources(raw, source: source) } ?? PhotoshopResources()
        let oldIIM = resources.data(id: PhotoshopResources.iptcID)
        var iimIndices = resources.indices(id: PhotoshopResources.iptcID)
        if iimIndices.isEmpty, create, isCaption {
            resources.setData([], id: PhotoshopResources.iptcID)
            iimIndices = resources.indices(id: PhotoshopResources.iptcID)
        }
        for index in iimIndices {
            if let edited = try editIIM(resources.resources[index].data, source: source) {
                resources.resources[index].data = edited
            }
        }
        let newIIM = resources.data(id: PhotoshopResources.iptcID) ?? []
        if let stored = resources.data(id: PhotoshopResources.iptcDigestID), let oldIIM, stored == MD5.digest(oldIIM) {
            resources.setData(MD5.digest(newIIM), id: PhotoshopResources.iptcDigestID)
        }
        return resources.bytes
    }
}

/// Options for writing.
public struct CaptionWriteOptions: Sendable {
    /// Keep the file's modification time.
    public var keepModificationTime: Bool
    /// Called with the snapshot after verification and before the file is replaced, so a
    /// caller can store it first; an error thrown here cancels the write.
    public var beforeReplacing: (@Sendable (MetadataSnapshot) throws -> Void)?

    /// Creates options.
    public init(keepModificationTime: Bool = false, beforeReplacing: (@Sendable (MetadataSnapshot) throws -> Void)? = nil) {
        self.keepModificationTime = keepModificationTime
        self.beforeReplacing = beforeReplacing
    }
}

/// Writes captions and alt text into photos, surgically, verified, atomically (Docs/Metadata.md).
///
/// JPEG, PNG, TIFF/DNG, WebP, HEIC/HEIF and AVIF are written in place; other formats are
/// refused with a clear error. Nothing is ever half-written.
public enum CaptionWriter {
    /// The XMP key of IPTC's accessibility alt text (libexiv2's prefix for Iptc4xmpCore is `iptc`).
    static let altTextKey = "Xmp.iptc.AltTextAccessibility"
    static let descriptionKey = "Xmp.dc.description"

    /// Writes `update` into the file at `path` and returns what it replaced.
    @discardableResult
    public static func write(_ update: CaptionUpdate, to path: String, options: CaptionWriteOptions = CaptionWriteOptions()) throws(MetadataError) -> MetadataSnapshot {
        try perform(.caption(update), on: path, options: options)
    }

    /// Removes the location from the file at `path`: the EXIF GPS directory (its bytes are
    /// zeroed where they belong to it alone), XMP GPS and location properties, and the IPTC
    /// location fields. Other metadata and the image are left exactly as they were.
    @discardableResult
    public static func stripLocation(from path: String, options: CaptionWriteOptions = CaptionWriteOptions()) throws(MetadataError) -> MetadataSnapshot {
        try perform(.stripAllLocation, on: path, options: options)
    }

    /// Reads, edits, verifies and atomically replaces one file (with a batch's write `buffers`).
    static func perform(_ operation: MetadataOperation, on path: String, options: CaptionWriteOptions,
                        buffers: FileAccess.Buffers? = nil) throws(MetadataError) -> MetadataSnapshot {
        if let window = try JPEGWindow.open(path),
           let snapshot = try performWindowed(operation, window: window, options: options, buffers: buffers) {
            return snapshot
        }
        let (original, identity) = try FileAccess.readWithIdentity(path)
        guard !original.isEmpty else { throw .unsupportedFormat(source: path, reason: "the file is empty") }
        try FileAccess.requireWritable(path)
        guard let (updated, result) = try edit(operation, original, source: path) else {
            // Nothing to remove: the file is not touched at all.
            return .unchanged(path)
        }
        do {
            try options.beforeReplacing?(result)
        } catch {
            throw .io(path: path, reason: "the snapshot could not be saved (\(error)), so the photo was not changed", isRetryable: true)
        }
        try FileAccess.replace(path, with: updated, expected: original, identity: identity, keepModificationTime: options.keepModificationTime,
                               buffers: buffers)
        return result
    }

    /// ``perform(_:on:options:buffers:)`` for a large JPEG, through a window (``JPEGWindow``): the header and
    /// the end of the file are edited and verified in memory, the coded image between is copied in pieces.
    /// Nil when the window cannot be used (an AFCP trailer, whose offsets are absolute): the caller reads the whole file.
    static func performWindowed(_ operation: MetadataOperation, window: JPEGWindow, options: CaptionWriteOptions,
                                buffers: FileAccess.Buffers?) throws(MetadataError) -> MetadataSnapshot? {
        let path = window.path
        let proxy = window.proxy
        let original = try JPEGFile(proxy, source: path)
        guard original.afcp == nil, original.afcpProblem == nil else { return nil }
        try FileAccess.requireWritable(path)
        guard let (updated, result) = try edit(operation, proxy, source: path) else {
            return .unchanged(path)
        }
        // The SOS segment and the coded image after it are the editors' untouched tail: the new header
        // ends where the same SOS segment ends, and what follows it is the old tail's bytes.
        let sos = Array(window.head[window.scanStart...])
        guard let headEnd = JPEGWindow.scanHeaderEnd(of: updated), headEnd >= sos.count,
              updated[(headEnd - sos.count)..<headEnd].elementsEqual(sos),
              updated[headEnd...].starts(with: window.tail.prefix(4096)) else {
            throw .verificationFailed(source: path, differences: ["the coded image (the edit moved it)"])
        }
        let gap = window.head.count - window.scanStart
        var saved = result
        try window.replace(
            newHead: updated[..<headEnd], newTail: updated[headEnd...], crc: original.imageDataCRC(tailPrefix: gap),
            keepModificationTime: options.keepModificationTime, buffers: buffers
        ) { middleCRC throws(MetadataError) in
            saved.imageDigest = Data(JPEGFile.digestBytes(CRC32.checksum(original.tail.dropFirst(gap), initial: middleCRC)))
            do {
                try options.beforeReplacing?(saved)
            } catch {
                throw .io(path: path, reason: "the snapshot could not be saved (\(error)), so the photo was not changed", isRetryable: true)
            }
        }
        return saved
    }

    /// The photo in `bytes` without its location (EXIF GPS, XMP and IPTC location fields),
    /// edited and verified in memory like a file write: for adding a photo to a vault or
    /// sharing it without ever writing a second plaintext copy to disk. Returns `bytes`
    /// unchanged when there is no location to remove.
    public static func strippingLocation(from bytes: [UInt8], source: String = "image") throws(MetadataError) -> [UInt8] {
        guard !bytes.isEmpty else { throw .unsupportedFormat(source: source, reason: "the file is empty") }
        return try edit(.stripAllLocation, bytes, source: source)?.updated ?? bytes
    }

    /// Edits and verifies `original` in memory; nil when a location strip finds nothing to remove.
    static func edit(_ operation: MetadataOperation, _ original: [UInt8], source path: String) throws(MetadataError) -> (updated: [UInt8], snapshot: MetadataSnapshot)? {
        let updated: [UInt8]
        let snapshot: MetadataSnapshot
        // Read once: the editors need the old captions, the verification every old tag.
        let beforeTags: [MetadataTag]
        do {
            beforeTags = try MetadataTagReader.read(original, source: path).tags
        } catch where error.code == .unreadable {
            throw .corrupt(source: error.path, reason: "its metadata cannot be read (\(error.reason))")
        }
        let old = MetadataReader.interpret(beforeTags, mimeType: "", iptcDigestMatches: nil).captions
        let oldCaptions = Set([old.exif, old.xmp, old.iptc].compactMap { $0 })
        var operation = operation
        if case .stripLocation = operation {
            let located = beforeTags.filter { operation.mayChange($0) }
            // libexiv2 does not decode the IPTC copies in a JPEG's FotoStation and AFCP trailers or EXIF IFD0: they are checked here.
            func hasLocation(_ iim: [UInt8]) -> Bool {
                (try? IPTCRecord(iim, source: path))?.dataSets.contains { $0.record == 2 && MetadataOperation.iptcLocationDataSets.contains($0.number) } == true
            }
            let jpeg = original.starts(with: [0xFF, 0xD8]) ? try? JPEGFile(original, source: path) : nil
            let trailerLocated = ((jpeg?.fotoStation?.iimBlocks ?? []) + (jpeg?.afcp?.iimBlocks ?? [])).contains(where: hasLocation)
            let embeddedLocated = jpeg?.exifTIFF.flatMap { try? TIFFBlock($0, source: path) }?.value(ofIFD0Tag: TIFFCaptionEditor.iptcTag).map(hasLocation) ?? false
            let plan = MetadataOperation.StripPlan(
                exif: located.contains { $0.key.hasPrefix("Exif.GPSInfo.") || $0.key == "Exif.Image.GPSTag" } || embeddedLocated,
                xmp: located.contains { $0.family == .xmp }, iptc: located.contains { $0.family == .iptc } || trailerLocated || embeddedLocated)
            guard !plan.isEmpty else { return nil }
            operation = .stripLocation(plan)
        }
        if original.starts(with: [0xFF, 0xD8, 0xFF]) {
            (updated, snapshot) = try JPEGCaptionEditor.apply(operation, to: original, source: path, oldCaptions: oldCaptions)
        } else if original.starts(with: PNGFile.signature) {
            (updated, snapshot) = try PNGCaptionEditor.apply(operation, to: original, source: path, oldCaptions: oldCaptions)
        } else if original.starts(with: [0x49, 0x49, 0x2A, 0x00]) || original.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            (updated, snapshot) = try TIFFCaptionEditor.apply(operation, to: original, source: path, oldCaptions: oldCaptions)
        } else if original.starts(with: Array("RIFF".utf8)) {
            (updated, snapshot) = try WebPCaptionEditor.apply(operation, to: original, source: path, oldCaptions: oldCaptions)
        } else if HEIFFile.looksLikeBMFF(original) {
            (updated, snapshot) = try HEIFCaptionEditor.apply(operation, to: original, source: path, oldCaptions: oldCaptions)
        } else {
            throw .unsupportedFormat(source: path, reason: "writing metadata into \(formatName(original)) files is not supported (JPEG, PNG, TIFF/DNG, WebP, HEIC/HEIF and AVIF are written; for other formats write an XMP sidecar: `CaptionWriter.writeSidecar`, `memora metadata write --sidecar`)")
        }
        try verify(original: original, updated: updated, operation: operation, source: path, before: beforeTags)
        var result = snapshot
        if case .wholeFile = snapshot.kept { result.imageDigest = Data(fingerprint(updated)) }
        return (updated, result)
    }

    /// Puts back the metadata a write replaced. Refuses when the image itself changed since.
    public static func restore(_ snapshot: MetadataSnapshot, to path: String, options: CaptionWriteOptions = CaptionWriteOptions()) throws(MetadataError) {
        if case .nothing = snapshot.resolved(for: .other) { return }
        let (current, identity) = try FileAccess.readWithIdentity(path)
        let container: MetadataSnapshot.Container = current.starts(with: [0xFF, 0xD8, 0xFF]) ? .jpeg
            : current.starts(with: PNGFile.signature) ? .png : .other
        let kept = snapshot.resolved(for: container)
        if case .nothing = kept { return }
        // What the restore replaces is itself a snapshot, so that the restore can be undone too.
        if let save = options.beforeReplacing {
            let now = try currentSnapshot(of: current, container: container, path: path, restoring: kept)
            do { try save(now) } catch {
                throw .io(path: path, reason: "the snapshot could not be saved (\(error)), so the photo was not changed", isRetryable: true)
            }
        }
        switch kept {
        case .nothing:
            return
        case .png(let saved):
            guard container == .png else { throw mismatch(path) }
            try PNGCaptionEditor.restore(saved, digest: snapshot.imageDigest, current: current, identity: identity, path: path, options: options)
        case .wholeFile(let whole):
            // A TIFF, WebP or HEIF snapshot is the whole original file.
            guard container == .other, Data(CaptionWriter.fingerprint(current)) == snapshot.imageDigest else {
                throw .verificationFailed(source: path, differences: ["the file (it changed since the caption was written, or the snapshot belongs to another file)"])
            }
            try FileAccess.replace(path, with: [UInt8](whole), expected: current, identity: identity, keepModificationTime: options.keepModificationTime)
        case .jpeg(let saved):
            guard container == .jpeg else { throw mismatch(path) }
            try JPEGCaptionEditor.restore(saved, digest: snapshot.imageDigest, current: current, identity: identity, path: path, options: options)
        case .unversioned:
            throw mismatch(path)
        }
    }

    /// The snapshot of a file's current metadata: what restoring `kept` replaces. A whole-file
    /// snapshot's digest is the file's after the restore, as after a write.
    static func currentSnapshot(of bytes: [UInt8], container: MetadataSnapshot.Container, path: String,
                                restoring kept: MetadataSnapshot.Kept) throws(MetadataError) -> MetadataSnapshot {
        switch container {
        case .jpeg: return JPEGCaptionEditor.snapshot(of: try JPEGFile(bytes, source: path), source: path)
        case .png: return PNGCaptionEditor.snapshot(of: try PNGFile(bytes, source: path), source: path)
        case .other:
            guard case .wholeFile(let restored) = kept else { throw mismatch(path) }
            return MetadataSnapshot(path: path, kept: .wholeFile(Data(bytes)), imageDigest: Data(fingerprint([UInt8](restored))))
        }
    }

    private static func mismatch(_ path: String) -> MetadataError {
        .verificationFailed(source: path, differences: ["the file's format (the snapshot was taken from a file of another format)"])
    }

    /// Compares every tag before and after, and the image data: only the intended fields may differ.
    static func verify(original: [UInt8], updated: [UInt8], operation: MetadataOperation, source: String, before: [MetadataTag]) throws(MetadataError) {
        let after: [MetadataTag]
        do {
            after = try MetadataTagReader.read(updated, source: source).tags
        } catch {
            throw .verificationFailed(source: source, differences: ["the result is not readable (\(error))"])
        }
        var differences: [String] = []
        let intended: Set<String> = [
            "Exif.Image.ImageDescription", "Exif.Image.XPComment", "Exif.Image.XPTitle", "Iptc.Application2.Caption",
            "Iptc.Envelope.CharacterSet", "Iptc.Application2.RecordVersion", descriptionKey, altTextKey,
            // In TIFF and DNG the XMP, IPTC and Photoshop blocks are themselves IFD0 tags; their
            // contents are compared above through the XMP and IPTC tags they decode to.
            "Exif.Image.XMLPacket", "Exif.Image.IPTCNAA", "Exif.Image.ImageResources",
        ]
        // Tags a brand-new EXIF block brings (the minimum readers expect).
        let createdEXIF: Set<String> = [
            "Exif.Image.XResolution", "Exif.Image.YResolution", "Exif.Image.ResolutionUnit", "Exif.Image.YCbCrPositioning",
            "Exif.Image.ExifTag", "Exif.Photo.ExifVersion", "Exif.Photo.ComponentsConfiguration", "Exif.Photo.FlashpixVersion",
            "Exif.Photo.ColorSpace",
        ]
        let hadEXIF = before.contains { $0.family == .exif }
        var isCaption = false
        if case .caption = operation { isCaption = true }
        let beforeUTF8 = before.first { $0.key == "Iptc.Envelope.CharacterSet" }?.rawBytes == IPTCRecord.utf8Marker
        func comparable(_ tags: [MetadataTag], utf8: Bool) -> [String: [String]] {
            var result: [String: [String]] = [:]
            for tag in tags where !operation.mayChange(tag)
                && !(isCaption && intended.contains(tag.key) && (tag.language.isEmpty || tag.language == "x-default"))
                && (hadEXIF || !createdEXIF.contains(tag.key)) {
                let value = tag.family == .iptc ? TextEncodings.decodeIPTCText(tag.rawBytes, declaredUTF8: utf8) : tag.value
                result[tag.key + (tag.language.isEmpty ? "" : "[\(tag.language)]"), default: []].append(value)
            }
            return result
        }
        let old = comparable(before, utf8: beforeUTF8)
        let new = comparable(after, utf8: after.first { $0.key == "Iptc.Envelope.CharacterSet" }?.rawBytes == IPTCRecord.utf8Marker)
        for key in Set(old.keys).union(new.keys).sorted() where old[key] != new[key] {
            func shown(_ values: [String]?) -> String {
                guard let values else { return "absent" }
                let text = values.joined(separator: " | ")
                return "\"" + (text.count > 40 ? String(text.prefix(40)) + "…" : text) + "\""
            }
            differences.append("\(key) (\(shown(old[key])) → \(shown(new[key])))")
        }
        // The intended fields hold the new values, or are gone.
        let reading = MetadataReader.interpret(after, mimeType: "", iptcDigestMatches: nil)
        let isJPEG = original.starts(with: [0xFF, 0xD8])
        let isTIFF = original.starts(with: [0x49, 0x49, 0x2A, 0x00]) || original.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
        switch operation {
        case .caption(let update):
            let expected = update.caption.trimmingCharacters(in: .whitespacesAndNewlines)
            if reading.captions.xmp?.trimmingCharacters(in: .whitespacesAndNewlines) != expected { differences.append("\(descriptionKey) (not written)") }
            if reading.captions.exif?.trimmingCharacters(in: .whitespacesAndNewlines) != expected { differences.append("Exif.Image.ImageDescription (not written)") }
            let hadIPTC = before.contains { $0.family == .iptc }
            if isJPEG || isTIFF || hadIPTC, reading.captions.iptc?.trimmingCharacters(in: .whitespacesAndNewlines) != expected {
                differences.append("Iptc.Application2.Caption (not written)")
            }
            if let altText = update.altText, reading.captions.altText != altText { differences.append("\(altTextKey) (not written)") }
        case .stripLocation:
            let left = after.filter { $0.key.hasPrefix("Exif.GPSInfo.") || $0.key == "Exif.Image.GPSTag" || operation.mayChange($0) }
                .filter { !["Exif.Image.XMLPacket", "Exif.Image.IPTCNAA", "Exif.Image.ImageResources"].contains($0.key) }
            differences += left.map { "\($0.key) (still there)" }
        }
        if isJPEG {
            if let beforeJPEG = try? JPEGFile(original, source: source), let afterJPEG = try? JPEGFile(updated, source: source) {
                if !beforeJPEG.hasSameImageData(as: afterJPEG) { differences.append("the image data") }
                differences += trailerDifferences("FotoStation", beforeJPEG.fotoStation?.comparableRecords, afterJPEG.fotoStation?.comparableRecords, operation: operation)
                differences += trailerDifferences("AFCP", beforeJPEG.afcp?.comparableRecords, afterJPEG.afcp?.comparableRecords, operation: operation)
                // The IPTC-NAA tag in EXIF IFD0 is compared by meaning (libexiv2 reports it as raw bytes here).
                func embeddedIIM(_ jpeg: JPEGFile) -> [UInt8]? {
                    jpeg.exifTIFF.flatMap { try? TIFFBlock($0, source: source) }?.value(ofIFD0Tag: TIFFCaptionEditor.iptcTag)
                }
                if let old = embeddedIIM(beforeJPEG) {
                    if let new = embeddedIIM(afterJPEG) {
                        // A copy that could not be converted is left as it was, which is allowed.
                        if old != new { differences += iimDifferences(old, new, operation: operation, place: "EXIF IPTC-NAA", mayLoseCaption: true) }
                    } else {
                        differences.append("the EXIF IPTC-NAA block (removed)")
                    }
                }
            } else {
                differences.append("the JPEG structure")
            }
        } else if isTIFF {
            // Checked by the editor itself: only IFD0 entries and replaced values changed, the rest was appended.
        } else if original.starts(with: Array("RIFF".utf8)) {
            if let before = try? WebPFile(original, source: source), let after = try? WebPFile(updated, source: source) {
                if before.imageChunks != after.imageChunks { differences.append("the image data") }
                if let canvas = before.canvas, canvas != after.canvas { differences.append("the canvas size") }
            } else {
                differences.append("the WebP structure")
            }
        } else if HEIFFile.looksLikeBMFF(original) {
            do {
                let before = try HEIFFile(original, source: source)
                let after = try HEIFFile(updated, source: source)
                let metadataItems = Set(HEIFFile.MetadataKind.allCases.flatMap(before.metadataItemIDs))
                differences += HEIFFile.differences(before: before, after: after, metadataItems: metadataItems)
            } catch {
                differences.append("the HEIF structure (\(error))")
            }
        } else if let beforePNG = try? PNGFile(original, source: source), let afterPNG = try? PNGFile(updated, source: source) {
            if beforePNG.imageChunks != afterPNG.imageChunks { differences.append("the image data") }
        } else {
            differences.append("the PNG structure")
        }
        guard differences.isEmpty else { throw .verificationFailed(source: source, differences: differences) }
    }

    /// What differs between two trailers (FotoStation, AFCP) beyond the operation: libexiv2 does
    /// not read them, so their IPTC copies are compared here, dataset by dataset and by meaning.
    static func trailerDifferences(_ name: String, _ before: [TrailerRecord]?, _ after: [TrailerRecord]?, operation: MetadataOperation) -> [String] {
        guard let before else { return after == nil ? [] : ["the \(name) trailer (added)"] }
        guard let after, after.map(\.id) == before.map(\.id) else { return ["the \(name) trailer's records"] }
        var found: [String] = []
        for (old, new) in zip(before, after) where old.data != new.data {
            guard old.isIIM else {
                found.append("\(name) \(old.id)")
                continue
            }
            found += iimDifferences(old.data, new.data, operation: operation, place: "\(name) IPTC")
        }
        return found
    }

    /// What differs between two IIM blocks that libexiv2 does not decode (a FotoStation copy, the
    /// IPTC-NAA tag in a JPEG's EXIF) beyond the operation, dataset by dataset and by meaning.
    /// `mayLoseCaption`: the copy may end with no caption at all (a secondary copy whose
    /// character set cannot hold it), but never with another one.
    static func iimDifferences(_ old: [UInt8], _ new: [UInt8], operation: MetadataOperation, place: String, mayLoseCaption: Bool = false) -> [String] {
        guard old != new else { return [] }
        guard let oldRecord = try? IPTCRecord(old, source: ""), let newRecord = try? IPTCRecord(new, source: "") else {
            return ["the \(place) block"]
        }
        var found: [String] = []
        let changeable: (IPTCRecord.DataSet) -> Bool
        switch operation {
        case .caption(let update):
            changeable = { ($0.record == 1 && $0.number == 90) || ($0.record == 2 && ($0.number == 0 || $0.number == 120)) }
            let captions = newRecord.envelopes.flatMap { $0.strings(record: 2, number: 120) }
            if (captions.isEmpty && !mayLoseCaption) || captions.contains(where: { $0 != update.caption }) { found.append("the \(place) caption (not written)") }
        case .stripLocation:
            changeable = { $0.record == 2 && MetadataOperation.iptcLocationDataSets.contains($0.number) }
            if newRecord.dataSets.contains(where: changeable) { found.append("the \(place) location (still there)") }
        }
        func meaning(_ record: IPTCRecord) -> [String] {
            record.envelopes.flatMap { envelope in
                envelope.dataSets.filter { !changeable($0) }.map { dataSet in
                    let value = IPTCRecord.isText(record: dataSet.record, number: dataSet.number)
                        ? TextEncodings.decodeIPTCText(dataSet.value, declaredUTF8: envelope.declaresUTF8)
                        : dataSet.value.map { String($0) }.joined(separator: ",")
                    return "\(dataSet.record):\(dataSet.number)=\(value)"
                }
            }
        }
        if meaning(oldRecord) != meaning(newRecord) { found.append("the \(place) datasets") }
        return found
    }

    /// A CRC-32 of a whole file, for whole-file snapshots (TIFF, WebP).
    static func fingerprint(_ bytes: [UInt8]) -> [UInt8] {
        let crc = CRC32.checksum(bytes)
        return [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    static func formatName(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "PNG" }
        if bytes.starts(with: Array("RIFF".utf8)) { return "WebP" }
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF/DNG" }
        if bytes.starts(with: [0x49, 0x49, 0x2B, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2B]) { return "BigTIFF" }
        if bytes.count > 12, Array(bytes[4..<8]) == Array("ftyp".utf8) { return "HEIF/AVIF" }
        return "this kind of"
    }
}

/// The JPEG part of the writer: new EXIF, XMP and IPTC segments, everything else untouched.
enum JPEGCaptionEditor {
    /// What a write to `jpeg` replaces: its metadata segments, at their positions, and its trailers.
    static func snapshot(of jpeg: JPEGFile, source: String) -> MetadataSnapshot {
        MetadataSnapshot(
            path: source,
            kept: .jpeg(MetadataSnapshot.JPEGMetadata(
                segments: jpeg.segments.enumerated().filter { JPEGFile.isMetadata($0.element) }
                    .map { MetadataSnapshot.JPEGSegment(marker: $0.element.marker, payload: Data($0.element.payload), position: $0.offset) },
                fotoStationTrailer: jpeg.fotoStation.map { Data($0.bytes) },
                afcpTrailer: jpeg.afcp.map { Data($0.original) })),
            imageDigest: Data(jpeg.imageDataDigest))
    }

    /// Puts back a JPEG's saved metadata segments and trailers, where they were.
    static func restore(_ saved: MetadataSnapshot.JPEGMetadata, digest: Data, current: [UInt8], identity: FileAccess.Identity, path: String,
                        options: CaptionWriteOptions) throws(MetadataError) {
        var jpeg = try JPEGFile(current, source: path)
        guard Data(jpeg.imageDataDigest) == digest else {
            throw .verificationFailed(source: path, differences: ["the image data (this is not the picture the snapshot was taken from)"])
        }
        // The other segments are the same ones in the same order, so the saved positions rebuild the original layout.
        jpeg.segments.removeAll(where: JPEGFile.isMetadata)
        if let trailer = saved.fotoStationTrailer {
            guard let found = FotoStationTrailer.find(in: [UInt8](trailer)[...]), found.start == 0 else {
                throw .corrupt(source: path, reason: "the snapshot is damaged")
            }
            jpeg.fotoStation = found.trailer
        }
        if let afcp = saved.afcpTrailer {
            guard let trailer = AFCPTrailer.saved([UInt8](afcp)) else { throw .corrupt(source: path, reason: "the snapshot is damaged") }
            jpeg.afcp = trailer
        }
        guard saved.segments.allSatisfy({ $0.payload.count <= JPEGFile.maximumPayload && $0.position >= 0 && $0.marker >= 0xC0 && $0.marker != 0xFF }) else {
            throw .corrupt(source: path, reason: "the snapshot is damaged")
        }
        for segment in saved.segments.sorted(by: { $0.position < $1.position }) {
            jpeg.segments.insert(JPEGFile.Segment(marker: segment.marker, payload: [UInt8](segment.payload)), at: min(segment.position, jpeg.segments.count))
        }
        try FileAccess.replace(path, with: jpeg.bytes, expected: current, identity: identity, keepModificationTime: options.keepModificationTime)
    }

    static func apply(_ operation: MetadataOperation, to original: [UInt8], source: String, oldCaptions: Set<String>) throws(MetadataError) -> ([UInt8], MetadataSnapshot) {
        var jpeg = try JPEGFile(original, source: source)
        let snapshot = snapshot(of: jpeg, source: source)
        // A trailer with absolute offsets that cannot be understood would be broken by any change of size.
        func result() throws(MetadataError) -> ([UInt8], MetadataSnapshot) {
            let output = jpeg.bytes
            if let problem = jpeg.afcpProblem, output.count != original.count {
                throw .unsupportedFormat(source: source, reason: "the file ends with an AFCP trailer that cannot be kept valid (\(problem)); nothing was changed")
            }
            return (output, snapshot)
        }

        // The IPTC copies in a FotoStation or AFCP trailer are edited like the APP13 one.
        if var trailer = jpeg.fotoStation {
            for index in trailer.records.indices where trailer.records[index].type == FotoStationTrailer.iptcType {
                if let edited = try operation.editIIM(trailer.records[index].data, source: source) { trailer.records[index].data = edited }
            }
            jpeg.fotoStation = trailer
        }
        if var trailer = jpeg.afcp {
            for index in trailer.entries.indices where trailer.entries[index].tag == AFCPTrailer.iptcTag {
                if let edited = try operation.editIIM(trailer.entries[index].data, source: source) { trailer.entries[index].data = edited }
            }
            jpeg.afcp = trailer
        }

        // XMP: parsed and re-serialised by the XMP toolkit; an unparsable packet stops the write.
        if let edits = operation.xmpEdits(hasPacket: jpeg.xmpPacket != nil) {
            let packet = try Exiv2.applyXMP(jpeg.xmpPacket ?? [], edits: edits, source: source)
            guard packet.count + JPEGFile.xmpSignature.count <= JPEGFile.maximumPayload else {
                throw .tooLarge(source: source, reason: "the XMP packet would be \(packet.count) bytes, more than a JPEG segment holds")
            }
            jpeg.setSegment(marker: 0xE1, signature: JPEGFile.xmpSignature, payload: JPEGFile.xmpSignature + packet)
        }

        // EXIF: the value in place or appended; IFD0 rewritten at the end only when it gains an entry.
        if var tiff = try operation.editEXIF(jpeg.exifTIFF, source: source, oldCaptions: oldCaptions) {
            if tiff.bytes.count + JPEGFile.exifSignature.count > JPEGFile.maximumPayload,
               let padded = jpeg.exifTIFF, let trimmed = TIFFBlock.withoutTrailingPadding(padded),
               let edited = try operation.editEXIF(trimmed, source: source, oldCaptions: oldCaptions) {
                // The block was padded with zeros up to the segment's limit: the padding makes room.
                tiff = edited
            }
            guard tiff.bytes.count + JPEGFile.exifSignature.count <= JPEGFile.maximumPayload else {
                throw .tooLarge(source: source, reason: "the EXIF block would be \(tiff.bytes.count) bytes, more than a JPEG segment holds")
            }
            jpeg.setSegment(marker: 0xE1, signature: JPEGFile.exifSignature, payload: JPEGFile.exifSignature + tiff.bytes)
        }

        // IPTC: UTF-8 with the 1:90 marker (other text re-encoded first), digest kept current.
        if let resources = try operation.editPhotoshopIPTC(jpeg.photoshopResources, create: true, source: source) {
            jpeg.setPhotoshopResources(resources)
        }
        return try result()
    }

    /// A minimal EXIF block for a JPEG that had none: the caption and the tags readers require.
    static func newEXIF(caption: [UInt8]) -> [UInt8] {
        let rational72: [UInt8] = [0, 0, 0, 72, 0, 0, 0, 1]
        return TIFFBlock.makeNew(
            ifd0: [
                (0x010E, 2, UInt32(caption.count), caption),
                (0x011A, 5, 1, rational72), (0x011B, 5, 1, rational72),
                (0x0128, 3, 1, [0, 2]), (0x0213, 3, 1, [0, 1]),
            ],
            exifIFD: [
                (0x9000, 7, 4, Array("0232".utf8)), (0x9101, 7, 4, [1, 2, 3, 0]),
                (0xA000, 7, 4, Array("0100".utf8)), (0xA001, 3, 1, [0xFF, 0xFF]),
            ])
    }
}

/// The PNG part of the writer: the standard `eXIf` chunk and the XMP `iTXt` chunk.
enum PNGCaptionEditor {
    /// What a write to `png` replaces: its eXIf and XMP chunks and the legacy profile chunks (their type and data, at their chunk index).
    static func snapshot(of png: PNGFile, source: String) -> MetadataSnapshot {
        var profiles: [MetadataSnapshot.PNGProfileChunk] = []
        for (kind, profile) in [(MetadataSnapshot.PNGProfileChunk.Profile.xmp, PNGFile.LegacyProfile.xmp), (.exif, .exif), (.iptc, .iptc)] {
            if let index = png.legacyIndex(profile) {
                profiles.append(.init(profile: kind, chunk: Data(png.chunks[index].type + png.chunks[index].data), position: index))
            }
        }
        let saved = MetadataSnapshot.PNGMetadata(exif: png.exif.map { Data($0) }, xmp: png.xmpIndex.map { Data(png.chunks[$0].data) }, profiles: profiles)
        return MetadataSnapshot(path: source, kept: .png(saved), imageDigest: Data(png.imageDataDigest))
    }

    static func apply(_ operation: MetadataOperation, to original: [UInt8], source: String, oldCaptions: Set<String>) throws(MetadataError) -> ([UInt8], MetadataSnapshot) {
        var png = try PNGFile(original, source: source)
        let snapshot = snapshot(of: png, source: source)

        // XMP or EXIF only in ImageMagick's legacy profile chunks moves into the standard chunks
        // (two copies would make readers list every property twice).
        // When both copies are there, the legacy one (which libexiv2 reads first) gets the same
        // new content, in its own chunk type and layout.
        var oldPacket = try png.xmpPacket(source: source)
        let legacyXMP = oldPacket == nil && png.legacyIndex(.xmp) != nil
        if legacyXMP { oldPacket = try png.legacyProfile(.xmp, source: source) }
        if let edits = operation.xmpEdits(hasPacket: oldPacket != nil) {
            let packet = try Exiv2.applyXMP(oldPacket ?? [], edits: edits, source: source)
            if legacyXMP, let index = png.legacyIndex(.xmp) { png.chunks.remove(at: index) }
            if !legacyXMP, png.legacyIndex(.xmp) != nil { try png.setLegacyProfile(.xmp, packet, source: source) }
            png.setXMP(packet)
        }
        // IPTC has no standard PNG chunk: an existing legacy profile is edited where it is, so
        // its caption stays in step and a location strip reaches it.
        if let profile = try png.legacyProfile(.iptc, source: source) {
            let edited = profile.starts(with: Array("8BIM".utf8))
                ? try operation.editPhotoshopIPTC(profile, create: false, source: source)
                : try operation.editIIM(profile, source: source)
            if let edited, edited != profile { try png.setLegacyProfile(.iptc, edited, source: source) }
        }
        var oldEXIF = png.exif
        let legacyEXIF = oldEXIF == nil && png.legacyIndex(.exif) != nil
        if legacyEXIF {
            oldEXIF = try png.legacyProfile(.exif, source: source).map { $0.starts(with: JPEGFile.exifSignature) ? Array($0.dropFirst(6)) : $0 }
        }
        guard let tiff = try operation.editEXIF(oldEXIF, source: source, oldCaptions: oldCaptions) else {
            return (png.bytes, snapshot)
        }
        if legacyEXIF, let index = png.legacyIndex(.exif) { png.chunks.remove(at: index) }
        if !legacyEXIF, let legacy = try png.legacyProfile(.exif, source: source) {
            try png.setLegacyProfile(.exif, (legacy.starts(with: JPEGFile.exifSignature) ? JPEGFile.exifSignature : []) + tiff.bytes, source: source)
        }
        png.setEXIF(tiff.bytes)
        return (png.bytes, snapshot)
    }

    static func restore(_ saved: MetadataSnapshot.PNGMetadata, digest: Data, current: [UInt8], identity: FileAccess.Identity, path: String,
                        options: CaptionWriteOptions) throws(MetadataError) {
        var png = try PNGFile(current, source: path)
        guard Data(png.imageDataDigest) == digest || Data(png.legacyImageDataDigest) == digest else {
            throw .verificationFailed(source: path, differences: ["the image data (this is not the picture the snapshot was taken from)"])
        }
        if let exif = saved.exif { png.setEXIF([UInt8](exif)) } else { png.chunks.removeAll { $0.typeName == "eXIf" } }
        if let xmp = saved.xmp {
            png.setXMPChunkData([UInt8](xmp))
        } else if let index = png.xmpIndex {
            png.chunks.remove(at: index)
        }
        // Legacy profile chunks go back where they were, lowest position first (those edited in
        // place are replaced where they are).
        for legacy in saved.profiles.filter({ $0.chunk.count >= 4 }).sorted(by: { $0.position < $1.position }) {
            let chunk = PNGFile.Chunk(type: [UInt8](legacy.chunk.prefix(4)), data: [UInt8](legacy.chunk.dropFirst(4)))
            let profile: PNGFile.LegacyProfile = switch legacy.profile { case .xmp: .xmp; case .exif: .exif; case .iptc: .iptc }
            if let index = png.legacyIndex(profile) {
                png.chunks[index] = chunk  // edited in place (IPTC, or a copy beside the standard chunk)
                continue
            }
            png.chunks.insert(chunk, at: min(max(legacy.position, 1), png.chunks.count - 1))
        }
        try FileAccess.replace(path, with: png.bytes, expected: current, identity: identity, keepModificationTime: options.keepModificationTime)
    }
}

/// The TIFF/DNG part of the writer: the whole file is one TIFF structure, so the same
/// surgical IFD0 edits apply (values in place or appended; IFD0 rewritten at the end when
/// it gains an entry) and the image strips and tiles never move.
enum TIFFCaptionEditor {
    static let xmpTag: UInt16 = 700
    static let iptcTag: UInt16 = 33723
    static let photoshopTag: UInt16 = 34377

    static func apply(_ operation: MetadataOperation, to original: [UInt8], source: String, oldCaptions: Set<String>) throws(MetadataError) -> ([UInt8], MetadataSnapshot) {
        guard var tiff = try operation.editEXIF(original, source: source, oldCaptions: oldCaptions, strictOrder: true) else {
            throw .corrupt(source: source, reason: "the TIFF structure is missing")
        }
        // XMP (tag 700).
        let oldPacket = tiff.value(ofIFD0Tag: xmpTag)
        if let edits = operation.xmpEdits(hasPacket: oldPacket != nil) {
            let xmpType = tiff.ifd0Entries.first { $0.tag == xmpTag }?.type ?? 1
            tiff.setIFD0(tag: xmpTag, type: xmpType == 7 ? 7 : 1, value: try Exiv2.applyXMP(oldPacket ?? [], edits: edits, source: source))
        }
        // IPTC (tag 33723), and the copy inside Photoshop resources (tag 34377) when there is one.
        if let newIIM = try operation.editIIM(tiff.value(ofIFD0Tag: iptcTag), source: source) {
            tiff.setIPTC(newIIM)
        }
        if let resourceBytes = tiff.value(ofIFD0Tag: photoshopTag) {
            var resources = try PhotoshopResources(resourceBytes, source: source)
            if let embedded = resources.data(id: PhotoshopResources.iptcID), let updatedIIM = try operation.editIIM(embedded, source: source) {
                let stored = resources.data(id: PhotoshopResources.iptcDigestID)
                resources.setData(updatedIIM, id: PhotoshopResources.iptcID)
                if let stored, stored == MD5.digest(embedded) { resources.setData(MD5.digest(updatedIIM), id: PhotoshopResources.iptcDigestID) }
                let type = tiff.ifd0Entries.first { $0.tag == photoshopTag }?.type ?? 1
                tiff.setIFD0(tag: photoshopTag, type: type, value: resources.bytes)
            }
        }
        guard tiff.preservesUntouchedBytes(of: original) else {
            throw .verificationFailed(source: source, differences: ["bytes outside the edited entries"])
        }
        let snapshot = MetadataSnapshot(path: source, kept: .wholeFile(Data(original)), imageDigest: Data())
        return (tiff.bytes, snapshot)
    }

    /// `iim` with the caption set in its first envelope (and any that had one), as UTF-8.
    /// `iim` with the caption in every envelope that has one (and in the first): each becomes
    /// UTF-8 first. An envelope in a character set that cannot be converted (ISO 2022) makes
    /// the edit throw, or, with `droppingUnwritable` (a secondary copy), loses its caption datasets.
    static func captioned(_ iim: [UInt8], update: CaptionUpdate, source: String, droppingUnwritable: Bool = false) throws(MetadataError) -> [UInt8] {
        var envelopes = try IPTCRecord(iim, source: source).envelopes
        for number in envelopes.indices where number == 0 || envelopes[number].dataSets.contains(where: { $0.record == 2 && $0.number == 120 }) {
            // A record that declares ISO 8859-1 keeps it when the caption fits: nothing else changes.
            if let latin1 = envelopes[number].latin1Encoded(update.caption) {
                envelopes[number].set(record: 2, number: 120, value: latin1)
                continue
            }
            do { try envelopes[number].convertToUTF8() } catch {
                guard droppingUnwritable else {
                    throw .unsupportedFormat(source: source, reason: "its IPTC text uses a declared character set other than Latin-1 or UTF-8, which cannot be converted without garbling it")
                }
                envelopes[number].set(record: 2, number: 120, value: nil)
                continue
            }
            envelopes[number].set(record: 2, number: 120, value: Array(update.caption.utf8))
        }
        return IPTCRecord(joining: envelopes).bytes
    }
}

/// The WebP part of the writer: EXIF and XMP chunks, VP8X added or updated.
enum WebPCaptionEditor {
    static func apply(_ operation: MetadataOperation, to original: [UInt8], source: String, oldCaptions: Set<String>) throws(MetadataError) -> ([UInt8], MetadataSnapshot) {
        var webp = try WebPFile(original, source: source)
        let edits = operation.xmpEdits(hasPacket: webp.xmpPacket != nil)
        let packet = try edits.map { edits throws(MetadataError) in try Exiv2.applyXMP(webp.xmpPacket ?? [], edits: edits, source: source) }
        let tiff = try operation.editEXIF(webp.exif, source: source, oldCaptions: oldCaptions)
        try webp.setMetadata(exif: tiff?.bytes, xmp: packet, source: source)
        let snapshot = MetadataSnapshot(path: source, kept: .wholeFile(Data(original)), imageDigest: Data())
        return (webp.bytes, snapshot)
    }
}
