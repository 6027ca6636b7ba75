import Foundation
internal import MemoraSystem

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
            let packet = try XMPPacketCheck.apply(oldPacket ?? [], edits: edits, source: source)
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
