import Foundation
public import MemoraSystem

/// Writes captions and alt text into photos, surgically, verified, atomically (Docs/Metadata.md).
///
/// JPEG, PNG, TIFF/DNG, WebP, HEIC/HEIF and AVIF are written in place; other formats are
/// refused with a clear error. Nothing is ever half-written.
public enum CaptionWriter {
    /// The XMP key of IPTC's accessibility alt text (libexiv2's prefix for Iptc4xmpCore is `iptc`).
    static let altTextKey = "Xmp.iptc.AltTextAccessibility"
    static let descriptionKey = "Xmp.dc.description"
    /// The mark of a basic description: `memora:BasicDescription` holds the caption it belongs to.
    static let basicDescriptionKey = "Xmp.memora.BasicDescription"
    /// IPTC's accessibility extended description.
    static let extendedDescriptionKey = "Xmp.iptc.ExtDescrAccessibility"
    /// Where the caption came from: `memora:CaptionSource`.
    static let captionSourceKey = "Xmp.memora.CaptionSource"
    /// The namespace of Memora's own XMP properties.
    public static let memoraNamespace = "http://ns.memora.photos/xmp/1.0/"

    /// Writes `update` into the file at `path` and returns what it replaced.
    @discardableResult
    public static func write(_ update: CaptionUpdate, to path: String, options: CaptionWriteOptions = CaptionWriteOptions()) throws(MetadataError) -> MetadataSnapshot {
        try perform(.caption(update), on: path, options: options)
    }

    /// Removes the location from the file at `path`: the EXIF GPS directory (its bytes are
    /// zeroed where they belong to it alone), XMP GPS and location properties, the IPTC
    /// location fields, and a JPEG's Ricoh RMETA block (APP5) when it holds a `Location` (whole:
    /// its other fields are the camera's sign recognition). Other metadata and the image are left
    /// exactly as they were. The snapshot names the blocks it removed from
    /// (``MetadataSnapshot/locationRemoved``), and any location still found after the write
    /// (``MetadataSnapshot/locationLeft``).
    @discardableResult
    public static func stripLocation(from path: String, options: CaptionWriteOptions = CaptionWriteOptions()) throws(MetadataError) -> MetadataSnapshot {
        var snapshot = try perform(.stripAllLocation, on: path, options: options)
        snapshot.locationLeft = UneditableLocation.fields(inFileAt: path)
        return snapshot
    }

    /// ``write(_:to:options:)`` in a task, for large photos: `progress` gets the bytes written and
    /// the total while a large photo (a JPEG of 64 MiB or more, a large TIFF or DNG) is copied
    /// around its new metadata in 8 MiB pieces, and once at the end for any photo; cancelling the
    /// task stops at the next piece, leaves the photo as it was and throws `cancelled`.
    @discardableResult
    public static func write(_ update: CaptionUpdate, to path: String, options: CaptionWriteOptions = CaptionWriteOptions(),
                             progress: @escaping @Sendable (_ written: UInt64, _ total: UInt64) -> Void) async throws(MetadataError) -> MetadataSnapshot {
        var options = options
        options.progress = { written, total throws(MetadataError) in
            if Task.isCancelled { throw .cancelled(source: path) }
            progress(UInt64(written), UInt64(total))
        }
        if Task.isCancelled { throw .cancelled(source: path) }
        let snapshot = try perform(.caption(update), on: path, options: options)
        let size = UInt64(FileSystem.statusIfPresent(of: path)?.size ?? 0)
        progress(size, size)
        return snapshot
    }

    /// A dry run of ``write(_:to:options:)``: the photo is read, edited and verified in memory
    /// exactly as a write would, and left untouched. Returns whether the write would change it;
    /// throws what the write would throw.
    public static func check(_ update: CaptionUpdate, in path: String) throws(MetadataError) -> Bool {
        try check(.caption(update), path)
    }

    /// A dry run of ``stripLocation(from:options:)``: whether the photo holds a location the strip
    /// would remove (edited and verified in memory, the photo untouched).
    public static func checkStripLocation(in path: String) throws(MetadataError) -> Bool {
        try check(.stripAllLocation, path)
    }

    private static func check(_ operation: MetadataOperation, _ path: String) throws(MetadataError) -> Bool {
        var options = CaptionWriteOptions()
        options.checksOnly = true
        do {
            _ = try perform(operation, on: path, options: options)
            return false  // returned without reaching the replacement: nothing to change
        } catch where error.code == .checkedOnly {
            return true
        }
    }

    /// Reads, edits, verifies and atomically replaces one file (with a batch's write `buffers`).
    static func perform(_ operation: MetadataOperation, on path: String, options: CaptionWriteOptions,
                        buffers: FileAccess.Buffers? = nil) throws(MetadataError) -> MetadataSnapshot {
        if let window = try JPEGWindow.open(path),
           let snapshot = try performWindowed(operation, window: window, options: options, buffers: buffers) {
            return snapshot
        }
        if let window = try TIFFWindow.open(path),
           let snapshot = try performWindowed(operation, tiff: window, options: options, buffers: buffers) {
            return snapshot
        }
        let (original, identity) = try FileAccess.readWithIdentity(path)
        guard !original.isEmpty else { throw .unsupportedFormat(source: path, reason: "the file is empty") }
        try FileAccess.requireWritable(path)
        guard let (updated, result) = try edit(operation, original, source: path) else {
            // Nothing to remove: the file is not touched at all.
            return .unchanged(path)
        }
        try options.willReplace(result, path: path)
        try FileAccess.replace(path, with: updated, expected: original, identity: identity, keepModificationTime: options.keepModificationTime,
                               buffers: buffers)
        return result
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
        let beforeTags = try tagsBeforeEdit(source: path) { () throws(MetadataError) in try MetadataTagReader.read(original, source: path).tags }
        let oldCaptions = captions(in: beforeTags)
        guard let operation = planned(operation, before: beforeTags, jpeg: MetadataContainer(original) == .jpeg ? try? JPEGFile(original, source: path) : nil,
                                      xmpPackets: MetadataContainer(original).flatMap { $0 == .jpeg ? nil : xmpPackets(of: original, container: $0, source: path) } ?? [],
                                      source: path) else { return nil }
        guard let container = MetadataContainer(original) else {
            throw .unsupportedFormat(source: path, reason: "writing metadata into \(MetadataContainer.name(of: original)) files is not supported (JPEG, PNG, TIFF/DNG, WebP, HEIC/HEIF and AVIF are written; an XMP sidecar beside the file can hold the caption instead)")
        }
        (updated, snapshot) = try container.editor.apply(operation, to: original, source: path, oldCaptions: oldCaptions)
        try verify(original: original, updated: updated, container: container, operation: operation, source: path, before: beforeTags)
        var result = snapshot
        if case .stripLocation(let plan) = operation { result.locationRemoved = plan.names }
        switch snapshot.kept {
        case .wholeFile, .patches: result.imageDigest = Data(fingerprint(updated))
        default: break
        }
        return (updated, result)
    }

    /// Every tag of the file before an edit; metadata that cannot be read makes the file corrupt for writing.
    static func tagsBeforeEdit(source path: String, _ read: () throws(MetadataError) -> [MetadataTag]) throws(MetadataError) -> [MetadataTag] {
        do {
            return try read()
        } catch where error.code == .unreadable {
            throw .corrupt(source: error.path ?? path, reason: "its metadata cannot be read (\(error.reason))")
        }
    }

    /// The captions a file holds (an EXIF description equal to one of them is a caption).
    static func captions(in tags: [MetadataTag]) -> Set<String> {
        let old = MetadataReader.interpret(tags, mimeType: "", iptcDigestMatches: nil).captions
        return Set([old.exif, old.xmp, old.iptc].compactMap { $0 })
    }

    /// `operation` with a location strip's plan made from the file's tags (and a JPEG's trailers
    /// and EXIF IPTC copy, which libexiv2 does not decode); nil when there is no location to remove.
    /// `xmpPackets`: the file's XMP packets as exiftool reads them (every standard segment of a
    /// JPEG, a PNG's or WebP's packet), which may hold location libexiv2 does not list.
    static func planned(_ operation: MetadataOperation, before beforeTags: [MetadataTag], jpeg parse: @autoclosure () -> JPEGFile?,
                        xmpPackets: @autoclosure () -> [[UInt8]] = [], source path: String) -> MetadataOperation? {
        guard case .stripLocation = operation else { return operation }
        let jpeg = parse()
        let located = beforeTags.filter { operation.mayChange($0) }
        func hasLocation(_ iim: [UInt8]) -> Bool {
            (try? IPTCRecord(iim, source: path))?.dataSets.contains { $0.record == 2 && MetadataOperation.iptcLocationDataSets.contains($0.number) } == true
        }
        let trailerLocated = ((jpeg?.fotoStation?.iimBlocks ?? []) + (jpeg?.afcp?.iimBlocks ?? [])).contains(where: hasLocation)
        let embeddedLocated = jpeg?.exifTIFF.flatMap { try? TIFFBlock($0, source: path) }?.value(ofIFD0Tag: TIFFCaptionEditor.iptcTag).map(hasLocation) ?? false
        let plan = MetadataOperation.StripPlan(
            // A second EXIF segment (which the JPEG editor refuses) may hold a location libexiv2 does not list.
            exif: located.contains { $0.key.hasPrefix("Exif.GPSInfo.") || $0.key == "Exif.Image.GPSTag" } || embeddedLocated
                || located.contains { MetadataOperation.makerNoteLocationKeys.contains($0.key) && $0.rawBytes.contains { $0 != 0 } }
                || (jpeg?.exifSegmentCount ?? 0) > 1,
            xmp: located.contains { $0.family == .xmp } || (jpeg?.xmpPackets ?? xmpPackets()).contains { XMPPacketCheck.holdsLocation($0, source: path) }
                || jpeg.map(JPEGXMPCopies.hasNonstandardXMP) == true,
            iptc: located.contains { $0.family == .iptc } || trailerLocated || embeddedLocated,
            ricoh: jpeg?.segments.contains(where: JPEGFile.isRicohLocation) == true)
        return plan.isEmpty ? nil : .stripLocation(plan)
    }

    /// Puts back the metadata a write replaced. Refuses when the image itself changed since.
    public static func restore(_ snapshot: MetadataSnapshot, to path: String, options: CaptionWriteOptions = CaptionWriteOptions()) throws(MetadataError) {
        if case .nothing = snapshot.resolved(for: .other) { return }
        let (current, identity) = try FileAccess.readWithIdentity(path)
        let container = MetadataContainer(current)?.snapshotContainer ?? .other
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
        case .patches(let patches):
            guard container == .other, Data(CaptionWriter.fingerprint(current)) == snapshot.imageDigest else {
                throw .verificationFailed(source: path, differences: ["the file (it changed since the caption was written, or the snapshot belongs to another file)"])
            }
            guard let restored = patches.applied(to: current) else { throw .corrupt(source: path, reason: "the snapshot is damaged") }
            try FileAccess.replace(path, with: restored, expected: current, identity: identity, keepModificationTime: options.keepModificationTime)
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
            switch kept {
            case .wholeFile(let restored):
                return MetadataSnapshot(path: path, kept: .wholeFile(Data(bytes)), imageDigest: Data(fingerprint([UInt8](restored))))
            case .patches(let patches):
                guard let restored = patches.applied(to: bytes) else { throw .corrupt(source: path, reason: "the snapshot is damaged") }
                return MetadataSnapshot(path: path, kept: .patches(patches.inverse(current: bytes)), imageDigest: Data(fingerprint(restored)))
            default:
                throw mismatch(path)
            }
        }
    }

    private static func mismatch(_ path: String) -> MetadataError {
        .verificationFailed(source: path, differences: ["the file's format (the snapshot was taken from a file of another format)"])
    }

    /// Compares every tag before and after, and the image data: only the intended fields may differ.
    static func verify(original: [UInt8], updated: [UInt8], container: MetadataContainer, operation: MetadataOperation, source: String,
                       before: [MetadataTag]) throws(MetadataError) {
        let after: [MetadataTag]
        do {
            after = try MetadataTagReader.read(updated, source: source).tags
        } catch {
            throw .verificationFailed(source: source, differences: ["the result is not readable (\(error))"])
        }
        // A packet the XMP toolkit rejects lists no XMP tags in libexiv2's reading: it is checked
        // only as exiftool reads it (XMPPacketCheck, in structureDifferences).
        // (When libexiv2 listed XMP tags, its toolkit read the packet: nothing to look at.)
        let checkedAsText = !before.contains { $0.family == .xmp }
            && xmpPackets(of: original, container: container, source: source)?.first.map { packet in
                !XMPPacketCheck.toolkitReads(packet, source: source) && (try? XMPDocument(packet)) != nil
            } == true
        var differences = tagDifferences(before: before, after: after, container: container, operation: operation, xmpCheckedAsText: checkedAsText)
        differences += structureDifferences(original: original, updated: updated, container: container, operation: operation, source: source)
        guard differences.isEmpty else { throw .verificationFailed(source: source, differences: differences) }
    }

    /// The tags that differ beyond what `operation` may change, and the intended fields that do not hold their new values.
    /// `xmpCheckedAsText`: the toolkit does not read the packet, which is checked as text instead.
    static func tagDifferences(before: [MetadataTag], after: [MetadataTag], container: MetadataContainer, operation: MetadataOperation,
                               xmpCheckedAsText: Bool = false) -> [String] {
        var differences: [String] = []
        let intended: Set<String> = [
            "Exif.Image.ImageDescription", "Exif.Image.XPComment", "Exif.Image.XPTitle", "Iptc.Application2.Caption",
            "Iptc.Envelope.CharacterSet", "Iptc.Application2.RecordVersion", descriptionKey, altTextKey, basicDescriptionKey,
            extendedDescriptionKey, captionSourceKey,
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
                && !(isCaption && tag.key == extendedDescriptionKey)  // set or removed whole
                && (hadEXIF || !createdEXIF.contains(tag.key)) {
                let value = tag.family == .iptc ? TextEncodings.decodeIPTCText(tag.rawBytes, declaredUTF8: utf8) : tag.value
                result[tag.key + (tag.language.isEmpty ? "" : "[\(tag.language)]"), default: []].append(value)
            }
            return result
        }
        let old = comparable(before, utf8: beforeUTF8)
        let new = comparable(after, utf8: after.first { $0.key == "Iptc.Envelope.CharacterSet" }?.rawBytes == IPTCRecord.utf8Marker)
        differences += valueDifferences(old, new)
        // The intended fields hold the new values, or are gone.
        let reading = MetadataReader.interpret(after, mimeType: "", iptcDigestMatches: nil)
        let isJPEG = container == .jpeg
        let isTIFF = container == .tiff
        switch operation {
        case .caption(let update):
            let expected = update.caption.trimmingCharacters(in: .whitespacesAndNewlines)
            if !xmpCheckedAsText, reading.captions.xmp?.trimmingCharacters(in: .whitespacesAndNewlines) != expected {
                differences.append("\(descriptionKey) (not written)")
            }
            if reading.captions.exif?.trimmingCharacters(in: .whitespacesAndNewlines) != expected { differences.append("Exif.Image.ImageDescription (not written)") }
            let hadIPTC = before.contains { $0.family == .iptc }
            if isJPEG || isTIFF || hadIPTC, reading.captions.iptc?.trimmingCharacters(in: .whitespacesAndNewlines) != expected {
                differences.append("Iptc.Application2.Caption (not written)")
            }
            // A caption dataset present twice: readers that show the last one (exiftool) see it too.
            let staleIPTC = after.filter { $0.key == "Iptc.Application2.Caption" }
                .map { TextEncodings.decodeIPTCText($0.rawBytes, declaredUTF8: false).trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { $0 != expected }
            if reading.captions.iptc != nil, !staleIPTC.isEmpty { differences.append("Iptc.Application2.Caption (a copy still holds \"\(staleIPTC[0].prefix(40))\")") }
            if !xmpCheckedAsText, let altText = update.altText, reading.captions.altText != altText { differences.append("\(altTextKey) (not written)") }
            if !xmpCheckedAsText, reading.captions.extendedDescription != update.extendedDescription {
                differences.append("\(extendedDescriptionKey) (\(update.extendedDescription == nil ? "still there" : "not written"))")
            }
            if !xmpCheckedAsText, reading.captions.captionSource != update.source { differences.append("\(captionSourceKey) (\(update.source == nil ? "still there" : "not written"))") }
        case .stripLocation:
            let left = after.filter { $0.key.hasPrefix("Exif.GPSInfo.") || $0.key == "Exif.Image.GPSTag" || operation.mayChange($0) }
                .filter { !["Exif.Image.XMLPacket", "Exif.Image.IPTCNAA", "Exif.Image.ImageResources", "Exif.Photo.MakerNote"].contains($0.key) }
                // A maker note's place name is cleared in place: the field stays, empty.
                .filter { !MetadataOperation.makerNoteLocationKeys.contains($0.key) || $0.rawBytes.contains { $0 != 0 } }
            differences += left.map { "\($0.key) (still there)" }
        }
        return differences
    }

    /// The standard XMP packets of a JPEG, PNG or WebP file (the ones checked as exiftool reads
    /// them); nil for the other containers, and an empty list for a file without XMP.
    static func xmpPackets(of bytes: [UInt8], container: MetadataContainer, source: String) -> [[UInt8]]? {
        switch container {
        case .jpeg: return (try? JPEGFile(bytes, source: source))?.xmpPackets
        case .webp: return (try? WebPFile(bytes, source: source)).map { $0.xmpPacket.map { [$0] } ?? [] }
        case .png: return (try? PNGFile(bytes, source: source)).map { ((try? $0.xmpPacket(source: source)) ?? nil).map { [$0] } ?? [] }
        default: return nil
        }
    }

    /// Each key whose values differ, with both (shortened), prefixed by `place`.
    static func valueDifferences(_ old: [String: [String]], _ new: [String: [String]], place: String = "") -> [String] {
        func shown(_ values: [String]?) -> String {
            guard let values else { return "absent" }
            let text = values.joined(separator: " | ")
            return "\"" + (text.count > 40 ? String(text.prefix(40)) + "…" : text) + "\""
        }
        return Set(old.keys).union(new.keys).sorted().filter { old[$0] != new[$0] }
            .map { "\(place.isEmpty ? "" : place + " ")\($0) (\(shown(old[$0])) → \(shown(new[$0])))" }
    }

    /// What differs in the container's structure beyond the metadata: the image data, the trailers, the boxes.
    static func structureDifferences(original: [UInt8], updated: [UInt8], container: MetadataContainer, operation: MetadataOperation,
                                     source: String) -> [String] {
        var differences: [String] = []
        if container == .jpeg {
            if let beforeJPEG = try? JPEGFile(original, source: source), let afterJPEG = try? JPEGFile(updated, source: source) {
                if !beforeJPEG.hasSameImageData(as: afterJPEG) { differences.append("the image data") }
                // libexiv2 reads the first XMP segment; the others are read as exiftool and Pillow do.
                differences += JPEGXMPCopies.differences(before: beforeJPEG, after: afterJPEG, operation: operation, source: source)
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
        } else if container == .tiff {
            // Checked by the editor itself: only IFD0 entries and replaced values changed, the rest was appended.
        } else if container == .webp {
            if let before = try? WebPFile(original, source: source), let after = try? WebPFile(updated, source: source) {
                if before.imageChunks != after.imageChunks { differences.append("the image data") }
                if let old = before.xmpPacket, let new = after.xmpPacket {
                    differences += XMPPacketCheck.differences(before: old, after: new, operation: operation, place: "XMP") ?? []
                }
                if let canvas = before.canvas, canvas != after.canvas { differences.append("the canvas size") }
            } else {
                differences.append("the WebP structure")
            }
        } else if container == .heif {
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
            if let old = try? beforePNG.xmpPacket(source: source), let new = try? afterPNG.xmpPacket(source: source) {
                differences += XMPPacketCheck.differences(before: old, after: new, operation: operation, place: "XMP") ?? []
            }
        } else {
            differences.append("the PNG structure")
        }
        return differences
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
        JPEGFile.digestBytes(CRC32.checksum(bytes))
    }
}
