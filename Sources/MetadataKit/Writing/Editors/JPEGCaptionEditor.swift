import Foundation
internal import MemoraSystem

/// The JPEG part of the writer: new EXIF, XMP and IPTC segments, everything else untouched.
enum JPEGCaptionEditor {
    /// What a write to `jpeg` replaces: its metadata segments, at their positions, and its trailers.
    static func snapshot(of jpeg: JPEGFile, source: String) -> MetadataSnapshot {
        MetadataSnapshot(
            path: source,
            kept: .jpeg(MetadataSnapshot.JPEGMetadata(
                segments: jpeg.segments.enumerated().filter { JPEGFile.isSaved($0.element) }
                    .map { MetadataSnapshot.JPEGSegment(marker: $0.element.marker, payload: Data($0.element.payload), position: $0.offset) },
                fotoStationTrailer: jpeg.fotoStation.map { Data($0.bytes) },
                afcpTrailer: jpeg.afcp.map { Data($0.original) })),
            imageDigest: Data(jpeg.imageDataDigest))
    }

    /// Puts back a JPEG's saved metadata segments and trailers, where they were.
    static func restore(_ saved: MetadataSnapshot.JPEGMetadata, digest: Data, current: [UInt8], identity: FileAccess.Identity, path: String,
                        options: CaptionWriteOptions) throws(MetadataError) {
        var jpeg = try JPEGFile(current, source: path)
        guard Data(jpeg.imageDataDigest) == digest || Data(jpeg.legacyImageDataDigest) == digest else {
            throw .verificationFailed(source: path, differences: ["the image data (this is not the picture the snapshot was taken from)"])
        }
        // The other segments are the same ones in the same order, so the saved positions rebuild the original layout.
        jpeg.segments.removeAll(where: JPEGFile.isSaved)
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
        // Every standard XMP segment gets the same edits (readers differ in which one they take),
        // and an Extended XMP that holds what the write changes is refused (JPEGXMPCopies).
        let xmpSegments = jpeg.xmpSegmentIndices
        try JPEGXMPCopies.requireNoNonstandardXMP(jpeg, source: source)
        try JPEGXMPCopies.requireOneEXIFSegment(jpeg, source: source)
        if let edits = operation.xmpEdits(hasPacket: !xmpSegments.isEmpty) {
            try JPEGXMPCopies.requireExtendedXMPUntouched(jpeg, operation: operation, source: source)
            func edited(_ old: [UInt8]) throws(MetadataError) -> [UInt8] {
                let packet = try XMPPacketCheck.apply(old, edits: edits, source: source)
                guard packet.count + JPEGFile.xmpSignature.count <= JPEGFile.maximumPayload else {
                    throw .tooLarge(source: source, reason: "the XMP packet would be \(packet.count) bytes, more than a JPEG segment holds")
                }
                return JPEGFile.xmpSignature + packet
            }
            if xmpSegments.isEmpty {
                jpeg.setSegment(marker: 0xE1, signature: JPEGFile.xmpSignature, payload: try edited([]))
            }
            for index in xmpSegments {
                jpeg.segments[index].payload = try edited(Array(jpeg.segments[index].payload.dropFirst(JPEGFile.xmpSignature.count)))
            }
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

        // A Ricoh RMETA block with a location: removed whole (its other fields are sign recognition).
        if case .stripLocation(let plan) = operation, plan.ricoh {
            jpeg.segments.removeAll(where: JPEGFile.isRicohBlock)
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
