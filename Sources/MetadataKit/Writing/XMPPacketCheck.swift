import Foundation

/// Edits an XMP packet, and checks an edited packet the way exiftool reads XMP.
///
/// An existing packet is edited as text (``XMPTextEditor``): every byte outside the changed
/// properties stays. A new packet, or one whose shape the text editor does not handle, goes
/// through libexiv2's XMP toolkit. The check parses both packets with ``XMPDocument``, which
/// reads what the toolkit rejects and keeps `rdf:about` values and repeated properties as
/// exiftool shows them, so a write cannot change what such readers see beyond its own fields.
enum XMPPacketCheck {
    /// `packet` (empty for a new one) with `edits` applied.
    static func apply(_ packet: [UInt8], edits: [XMPEdit], source: String) throws(MetadataError) -> [UInt8] {
        if packet.contains(where: { !isBlank($0) }), let edited = try? XMPTextEditor.apply(packet, edits: edits) {
            return edited
        }
        return try Exiv2.applyXMP(packet, edits: edits, source: source)
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0 || byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// Whether libexiv2's toolkit reads `packet` (when it does not, libexiv2 lists no XMP tags and
    /// the check here is the only one of the packet).
    static func toolkitReads(_ packet: [UInt8], source: String) -> Bool {
        (try? Exiv2.readXMP(packet, source: source)) != nil
    }

    /// Whether `value` is one the operation sets or removes.
    static func isChanged(_ value: XMPDocument.Value, by operation: MetadataOperation) -> Bool {
        switch operation {
        case .caption(let update):
            if value.path.isEmpty, matches(value, CaptionWriter.basicDescriptionKey) || matches(value, CaptionWriter.captionSourceKey) { return true }
            // The extended description is set or removed whole, every language of it.
            if matches(value, CaptionWriter.extendedDescriptionKey) { return true }
            // A bare string (the attribute form) becomes the language alternative.
            guard value.path == "[x-default]" || value.path.isEmpty else { return false }
            return matches(value, CaptionWriter.descriptionKey) || (update.altText != nil && matches(value, CaptionWriter.altTextKey))
        case .stripLocation:
            return MetadataOperation.xmpLocationKeys.contains { matches(value, $0) }
        }
    }

    private static func matches(_ value: XMPDocument.Value, _ key: String) -> Bool {
        (try? XMPTextEditor.PropertyName(key: key))?.matches(namespace: value.namespace, local: value.name) == true
    }

    /// Whether `packet` holds a location a strip removes, as exiftool reads it (as the toolkit
    /// reads it when it is not parsed here).
    static func holdsLocation(_ packet: [UInt8], source: String) -> Bool {
        if let document = try? XMPDocument(packet) { return document.values.contains { isChanged($0, by: .stripAllLocation) } }
        return (try? Exiv2.readXMP(packet, source: source))?.contains { MetadataOperation.stripAllLocation.mayChange($0) } == true
    }

    /// What differs between two versions of one packet beyond the operation, and the intended
    /// values that are missing; nil when either cannot be parsed here (the caller falls back to
    /// the toolkit's reading). `place` names the packet in messages.
    static func differences(before: [UInt8], after: [UInt8], operation: MetadataOperation, place: String) -> [String]? {
        guard let old = try? XMPDocument(before), let new = try? XMPDocument(after) else { return nil }
        func comparable(_ document: XMPDocument) -> [String: [String]] {
            var result: [String: [String]] = [:]
            for value in document.values where !isChanged(value, by: operation) { result[value.key, default: []].append(value.text) }
            return result
        }
        let oldValues = comparable(old), newValues = comparable(new)
        var found = CaptionWriter.valueDifferences(oldValues, newValues, place: place)
        let changed = new.values.filter { isChanged($0, by: operation) }
        switch operation {
        case .caption(let update):
            func check(_ key: String, _ expected: String) {
                let written = changed.filter { matches($0, key) }
                if written.isEmpty || written.contains(where: { $0.text != expected }) { found.append("\(place) \(key) (not written)") }
            }
            check(CaptionWriter.descriptionKey, update.caption)
            if let altText = update.altText { check(CaptionWriter.altTextKey, altText) }
            if let extended = update.extendedDescription {
                check(CaptionWriter.extendedDescriptionKey, extended)
            } else if changed.contains(where: { matches($0, CaptionWriter.extendedDescriptionKey) }) {
                found.append("\(place) \(CaptionWriter.extendedDescriptionKey) (still there)")
            }
            let sources = changed.filter { matches($0, CaptionWriter.captionSourceKey) }.map(\.text)
            if sources != (update.source.map { [$0] } ?? []) {
                found.append("\(place) \(CaptionWriter.captionSourceKey) (\(update.source == nil ? "still there" : "not written"))")
            }
            let marks = changed.filter { matches($0, CaptionWriter.basicDescriptionKey) }
            if update.isBasicDescription ? marks.map(\.text) != [update.caption] : !marks.isEmpty {
                found.append("\(place) \(CaptionWriter.basicDescriptionKey) (\(update.isBasicDescription ? "not written" : "still there"))")
            }
        case .stripLocation:
            found += changed.map { "\(place) \($0.namespace)\($0.name) (still there)" }
        }
        return found
    }
}
