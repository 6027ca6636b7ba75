import Foundation

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
            return tag.key == CaptionWriter.descriptionKey || (update.altText != nil && tag.key == CaptionWriter.altTextKey)
        case .stripLocation:
            return operation.mayChange(tag)
        }
    }

    /// Whether a standard XMP segment after the first holds location (libexiv2 never lists it).
    static func laterCopiesHoldLocation(_ jpeg: JPEGFile, source: String) -> Bool {
        jpeg.xmpPackets.dropFirst().contains { packet in
            (try? Exiv2.readXMP(packet, source: source))?.contains { MetadataOperation.stripAllLocation.mayChange($0) } == true
        }
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
        for (index, (oldPacket, newPacket)) in zip(old, new).enumerated().dropFirst() {
            let place = "XMP segment \(index + 1)"
            guard let oldTags = try? Exiv2.readXMP(oldPacket, source: source), let newTags = try? Exiv2.readXMP(newPacket, source: source) else {
                found.append("\(place) (not readable)")
                continue
            }
            func comparable(_ tags: [MetadataTag]) -> [String: [String]] {
                var result: [String: [String]] = [:]
                for tag in tags where !(isChanged(tag, by: operation) && (tag.language.isEmpty || tag.language == "x-default" || operation.isStrip)) {
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
            case .stripLocation:
                found += newTags.filter { operation.mayChange($0) }.map { "\(place) \($0.key) (still there)" }
            }
        }
        return found
    }
}
