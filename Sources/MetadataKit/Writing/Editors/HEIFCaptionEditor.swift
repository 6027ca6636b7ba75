import Foundation

/// The HEIC/HEIF/AVIF part of the writer: the primary image's `Exif` item (its TIFF block
/// edited surgically, like a JPEG's) and XMP `mime` item replaced or added; image items,
/// their properties and references untouched. HEIF has no IPTC IIM block.
enum HEIFCaptionEditor {
    /// What precedes the TIFF header in a new `Exif` item: `exif_tiff_header_offset` = 6,
    /// then `Exif\0\0`, as iPhones and exiftool write it.
    static let newEXIFPrefix: [UInt8] = [0, 0, 0, 6] + JPEGFile.exifSignature

    static func apply(_ operation: MetadataOperation, to original: [UInt8], source: String, oldCaptions: Set<String>) throws(MetadataError) -> ([UInt8], MetadataSnapshot) {
        let heif = try HEIFFile(original, source: source)
        let split = try heif.exifBlock()
        let exif = try operation.editEXIF(split?.tiff, source: source, oldCaptions: oldCaptions)
            .map { (split?.prefix ?? newEXIFPrefix) + $0.bytes }
        let xmpItem = try heif.metadataItem(.xmp)
        let xmp = try operation.xmpEdits(hasPacket: xmpItem != nil).map { edits throws(MetadataError) in
            try XMPPacketCheck.apply(xmpItem?.data ?? [], edits: edits, source: source)
        }
        let updated = try heif.settingMetadata(exif: exif, xmp: xmp)
        let snapshot = MetadataSnapshot(path: source, kept: .wholeFile(Data(original)), imageDigest: Data())
        return (updated, snapshot)
    }
}
