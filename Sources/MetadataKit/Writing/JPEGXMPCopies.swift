import Foundation
internal import MemoraSystem

/// The XMP copies of a JPEG beyond the one libexiv2 reads. libexiv2 reads the first standard
/// XMP segment; Pillow reads the last; exiftool reads every one (a property in two shows the
/// last one's value) and merges the Extended XMP (`http://ns.adobe.com/xmp/extension/`) into
/// them. A write edits every standard copy alike, refuses when the Extended XMP holds a
/// property it changes, and verifies each copy as it verifies the first (Docs/Metadata.md).
enum JPEGXMPCopies {
    /// Whether the operation sets or removes `tag` (an XMP property).
    static func isChanged(_ tag: MetadataTag, by operation: MetadataOperation) -> Bool {
        switch operation {
        case .caption(let update):
            return tag.key == CaptionWriter.descriptionKey || tag.key == CaptionWriter.basicDescriptionKey || tag.key == CaptionWriter.captionSourceKey
                || tag.key == CaptionWriter.extendedDescriptionKey || (update.altText != nil && tag.key == CaptionWriter.altTextKey)
        case .stripLocation:
            return operation.mayChange(tag)
        }
    }

    /// Refuses a JPEG with an APP1 segment that exiftool reads as XMP although its header is not
    /// the standard one (damaged or non-standard). exiftool's rule: an APP1 payload that is not
    /// EXIF and starts with `http` or `XMP\0`, or holds `<?xpacket` or `<exif:`, is XMP. Memora
    /// edits only segments with the standard header, so such a packet would keep its old caption
    /// (or location) where exiftool, and the programs built on it, still show it.
    static func requireNoNonstandardXMP(_ jpeg: JPEGFile, source: String) throws(MetadataError) {
        if hasNonstandardXMP(jpeg) {
            throw .corrupt(source: source, reason: "an APP1 segment holds XMP under a damaged or non-standard header; exiftool and the programs built on it still read it and would keep showing what it says. Repair the file first (for example `exiftool -all= -tagsfromfile @ -all:all FILE` rewrites the metadata), or write an XMP sidecar (--sidecar)")
        }
    }

    /// Refuses a JPEG with more than one EXIF segment: libexiv2 and Pillow read the first,
    /// exiftool every one, so the others would keep showing the old caption or location.
    static func requireOneEXIFSegment(_ jpeg: JPEGFile, source: String) throws(MetadataError) {
        let count = jpeg.exifSegmentCount
        if count > 1 {
            throw .corrupt(source: source, reason: "it holds \(count) EXIF blocks (APP1 segments); exiftool and the programs built on it read every one and would keep showing what the others say. Keep one first (for example `exiftool -all= -tagsfromfile @ -all:all FILE` rewrites the metadata), or write an XMP sidecar (--sidecar)")
        }
    }

    /// Whether an APP1 segment is XMP to exiftool without the standard header (see ``requireNoNonstandardXMP(_:source:)``).
    /// A location strip counts it as location it must look at, so it is refused rather than reported done.
    static func hasNonstandardXMP(_ jpeg: JPEGFile) -> Bool {
        jpeg.segments.contains { segment in
            guard segment.marker == 0xE1 else { return false }
            let payload = segment.payload
            if payload.starts(with: JPEGFile.xmpSignature) || payload.starts(with: JPEGFile.extendedXMPSignature)
                || payload.prefix(9).indices.contains(where: { payload[$0...].starts(with: Array("Exif".utf8) + [0]) }) { return false }
            return payload.starts(with: Array("http".utf8)) || payload.starts(with: Array("XMP".utf8) + [0])
                || contains(Array("<?xpacket".utf8), in: payload) || contains(Array("<exif:".utf8), in: payload)
        }
    }

    /// Whether `pattern` occurs in `bytes`.
    private static func contains(_ pattern: [UInt8], in bytes: [UInt8]) -> Bool {
        guard let first = pattern.first, bytes.count >= pattern.count else { return false }
        var start = 0
        while let found = ByteSearch.firstIndex(of: first, in: bytes, from: start, to: bytes.count - pattern.count + 1) {
            if bytes[found..<found + pattern.count].elementsEqual(pattern) { return true }
            start = found + 1
        }
        return false
    }

    /// Refuses a JPEG whose Extended XMP holds a property the operation changes: exiftool would
    /// still show its old value beside the new one, and the parts (up to 64 KB each, tied to the
    /// main packet by the MD5 of the whole) are not rewritten here.
    static func requireExtendedXMPUntouched(_ jpeg: JPEGFile, operation: MetadataOperation, source: String) throws(MetadataError) {
        for (guid, packet) in jpeg.extendedXMPPackets {
            guard let tags = try? Exiv2.readXMP(packet, source: source) else { continue }
            let keys = Set(tags.filter { isChanged($0, by: operation) }.map(\.key)).sorted()
            guard keys.isEmpty else {
                throw .unsupportedFormat(source: source, reason: "its Extended XMP (GUID \(guid)) holds \(keys.joined(separator: ", ")), which exiftool reads beside the main XMP packet and Memora does not rewrite; remove the Extended XMP first (exiftool -XMP:all= keeps nothing of it) or write an XMP sidecar (--sidecar); nothing was changed")
            }
        }
    }

    /// What differs in the standard XMP copies after the first (libexiv2 compares the first) beyond
    /// the operation: every other property the same, the caption and alt text written, no location
    /// left, and as many copies as before.
    static func differences(before: JPEGFile, after: JPEGFile, operation: MetadataOperation, source: String) -> [String] {
        let old = before.xmpPackets, new = after.xmpPackets
        guard new.count == max(old.count, 1) || (old.isEmpty && new.isEmpty) else {
            return ["the number of XMP segments (\(old.count) → \(new.count))"]
        }
        var found: [String] = []
        for (index, (oldPacket, newPacket)) in zip(old, new).enumerated() {
            let place = "XMP segment \(index + 1)"
            // Read as exiftool reads it; a packet this reader does not parse is compared through
            // the toolkit (the first one already is, by the tag comparison).
            if let packetDifferences = XMPPacketCheck.differences(before: oldPacket, after: newPacket, operation: operation, place: place) {
                found += packetDifferences
                continue
            }
            guard index > 0 else { continue }
            guard let oldTags = try? Exiv2.readXMP(oldPacket, source: source), let newTags = try? Exiv2.readXMP(newPacket, source: source) else {
                found.append("\(place) (not readable)")
                continue
            }
            func comparable(_ tags: [MetadataTag]) -> [String: [String]] {
                var result: [String: [String]] = [:]
                for tag in tags where !(isChanged(tag, by: operation)
                                        && (tag.language.isEmpty || tag.language == "x-default" || operation.isStrip || tag.key == CaptionWriter.extendedDescriptionKey)) {
                    result[tag.key + (tag.language.isEmpty ? "" : "[\(tag.language)]"), default: []].append(tag.value)
                }
                return result
            }
            let oldValues = comparable(oldTags), newValues = comparable(newTags)
            for key in Set(oldValues.keys).union(newValues.keys).sorted() where oldValues[key] != newValues[key] {
                found.append("\(place) \(key)")
            }
            func value(_ key: String) -> String? {
                newTags.first { $0.key == key && $0.language == "x-default" }?.value
            }
            switch operation {
            case .caption(let update):
                if value(CaptionWriter.descriptionKey) != update.caption { found.append("\(place) \(CaptionWriter.descriptionKey) (not written)") }
                if let altText = update.altText, value(CaptionWriter.altTextKey) != altText { found.append("\(place) \(CaptionWriter.altTextKey) (not written)") }
                if value(CaptionWriter.extendedDescriptionKey) != update.extendedDescription {
                    found.append("\(place) \(CaptionWriter.extendedDescriptionKey) (\(update.extendedDescription == nil ? "still there" : "not written"))")
                }
            case .stripLocation:
                found += newTags.filter { operation.mayChange($0) }.map { "\(place) \($0.key) (still there)" }
            }
        }
        return found
    }
}
