import Foundation
internal import MemoraSystem

/// The WebP part of the writer: EXIF and XMP chunks, VP8X added or updated.
enum WebPCaptionEditor {
    static func apply(_ operation: MetadataOperation, to original: [UInt8], source: String, oldCaptions: Set<String>) throws(MetadataError) -> ([UInt8], MetadataSnapshot) {
        var webp = try WebPFile(original, source: source)
        let edits = operation.xmpEdits(hasPacket: webp.xmpPacket != nil)
        let packet = try edits.map { edits throws(MetadataError) in try XMPPacketCheck.apply(webp.xmpPacket ?? [], edits: edits, source: source) }
        let tiff = try operation.editEXIF(webp.exif, source: source, oldCaptions: oldCaptions)
        try webp.setMetadata(exif: tiff?.bytes, xmp: packet, source: source)
        let snapshot = MetadataSnapshot(path: source, kept: .wholeFile(Data(original)), imageDigest: Data())
        return (webp.bytes, snapshot)
    }
}
