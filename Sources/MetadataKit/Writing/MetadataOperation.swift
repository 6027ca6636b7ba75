import Foundation
internal import MemoraSystem

/// What a write does.
enum MetadataOperation: Sendable {
    /// Sets the caption (and alt text) everywhere the format carries it.
    case caption(CaptionUpdate)
    /// Removes GPS from EXIF and XMP, and the location fields from XMP and IPTC; the plan says
    /// which blocks hold any, so the others are not touched (not even re-serialised).
    case stripLocation(StripPlan)

    /// A location strip before the file is looked at: every block, narrowed by `edit` to those that hold a location.
    static let stripAllLocation = MetadataOperation.stripLocation(.init(exif: true, xmp: true, iptc: true, ricoh: true))

    /// Which metadata blocks of a file hold location data.
    struct StripPlan: Sendable {
        var exif: Bool
        var xmp: Bool
        var iptc: Bool
        /// A JPEG's Ricoh RMETA block (APP5) with a `Location`: removed whole.
        var ricoh: Bool = false
        var isEmpty: Bool { !exif && !xmp && !iptc && !ricoh }

        /// The blocks, named for a person, as a strip's summary lists what it removed.
        var names: [String] {
            [(exif, "EXIF GPS"), (xmp, "XMP location"), (iptc, "IPTC location"), (ricoh, "Ricoh RMETA block (APP5)")].filter(\.0).map(\.1)
        }
    }

    /// The XMP properties a location strip removes (`*`: every key with that prefix).
    static let xmpLocationKeys = [
        "Xmp.exif.GPS*", "Xmp.exifEX.GPS*", "Xmp.iptcExt.LocationCreated*", "Xmp.iptcExt.LocationShown*", "Xmp.iptc.Location",
        "Xmp.iptc.CountryCode", "Xmp.photoshop.City", "Xmp.photoshop.State", "Xmp.photoshop.Country",
        // A location structure's fields written at the top level (GIMP does), which exiftool reads as location.
        "Xmp.iptcExt.City", "Xmp.iptcExt.CountryName", "Xmp.iptcExt.CountryCode", "Xmp.iptcExt.ProvinceState",
        "Xmp.iptcExt.Sublocation", "Xmp.iptcExt.WorldRegion", "Xmp.iptcExt.LocationId", "Xmp.iptcExt.LocationName",
    ]
    /// The maker-note fields a location strip clears (their bytes zeroed in place, as exiftool leaves
    /// them: present and empty): a Panasonic camera's place names.
    static let makerNoteLocationKeys: Set<String> = [
        "Exif.Panasonic.Location", "Exif.Panasonic.Country", "Exif.Panasonic.State", "Exif.Panasonic.City",
        "Exif.Panasonic.Landmark", "Exif.Panasonic.City2",
    ]
    /// The IPTC datasets a location strip removes: content location code and name, city,
    /// sub-location, province/state, country code and name.
    static let iptcLocationDataSets: [UInt8] = [26, 27, 90, 92, 95, 100, 101]
    static let iptcLocationKeys: Set<String> = [
        "Iptc.Application2.LocationCode", "Iptc.Application2.LocationName", "Iptc.Application2.City", "Iptc.Application2.SubLocation",
        "Iptc.Application2.ProvinceState", "Iptc.Application2.CountryCode", "Iptc.Application2.CountryName",
    ]

    /// Whether this is a location strip.
    var isStrip: Bool {
        if case .stripLocation = self { return true }
        return false
    }

    /// Whether a tag is one the operation may change (or remove).
    func mayChange(_ tag: MetadataTag) -> Bool {
        switch self {
        case .caption:
            return false  // handled by the caption rules in `verify`
        case .stripLocation:
            if tag.key.hasPrefix("Exif.GPSInfo.") || tag.key == "Exif.Image.GPSTag" || Self.iptcLocationKeys.contains(tag.key) { return true }
            if Self.makerNoteLocationKeys.contains(tag.key) || tag.key == "Exif.Photo.MakerNote" { return true }
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
            // A caption written without an extended description takes the old one away: it described another caption.
            edits.append(update.extendedDescription.map { .setLanguageItem(key: CaptionWriter.extendedDescriptionKey, language: "x-default", value: $0) }
                         ?? .remove(key: CaptionWriter.extendedDescriptionKey))
            edits.append(update.source.map { .setText(key: CaptionWriter.captionSourceKey, value: $0) } ?? .remove(key: CaptionWriter.captionSourceKey))
            // A basic description is marked as such; any other caption takes the mark away.
            edits.append(update.isBasicDescription ? .setText(key: CaptionWriter.basicDescriptionKey, value: update.caption)
                                                   : .remove(key: CaptionWriter.basicDescriptionKey))
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
        return try editEXIF(block: TIFFBlock(existing, source: source), source: source, oldCaptions: oldCaptions, strictOrder: strictOrder)
    }

    /// ``editEXIF(_:source:oldCaptions:strictOrder:)`` on a parsed block (a TIFF file's, kept in sparse memory).
    func editEXIF(block: TIFFBlock, source: String, oldCaptions: Set<String>, strictOrder: Bool) throws(MetadataError) -> TIFFBlock {
        var tiff = block
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
            if plan.exif {
                tiff.stripGPS()
                tiff.clearMakerNoteLocation()
            }
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
