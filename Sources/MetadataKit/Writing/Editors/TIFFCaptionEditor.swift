import Foundation
internal import MemoraSystem

/// The TIFF/DNG part of the writer: the whole file is one TIFF structure, so the same
/// surgical IFD0 edits apply (values in place or appended; IFD0 rewritten at the end when
/// it gains an entry) and the image strips and tiles never move.
enum TIFFCaptionEditor {
    static let xmpTag: UInt16 = 700
    static let iptcTag: UInt16 = 33723
    static let photoshopTag: UInt16 = 34377

    static func apply(_ operation: MetadataOperation, to original: [UInt8], source: String, oldCaptions: Set<String>) throws(MetadataError) -> ([UInt8], MetadataSnapshot) {
        let tiff = try edited(TIFFBlock(original, source: source), operation: operation, source: source, oldCaptions: oldCaptions)
        // Everything outside the touched ranges is unchanged (checked by `edited`): those ranges and the
        // original length bring the file back.
        let snapshot = MetadataSnapshot(path: source, kept: .patches(.init(original: original, overwritten: tiff.touched)), imageDigest: Data())
        return (tiff.bytes, snapshot)
    }

    /// `file` (a whole TIFF or DNG) with `operation` applied to IFD0 and its XMP, IPTC and Photoshop blocks;
    /// refused when anything outside the touched ranges changed.
    static func edited(_ file: TIFFBlock, operation: MetadataOperation, source: String, oldCaptions: Set<String>) throws(MetadataError) -> TIFFBlock {
        let layout = try structure(of: file, source: source)
        var tiff = try operation.editEXIF(block: file, source: source, oldCaptions: oldCaptions, strictOrder: true)
        // XMP (tag 700).
        let oldPacket = tiff.value(ofIFD0Tag: xmpTag)
        if let edits = operation.xmpEdits(hasPacket: oldPacket != nil) {
            let xmpType = tiff.ifd0Entries.first { $0.tag == xmpTag }?.type ?? 1
            tiff.setIFD0(tag: xmpTag, type: xmpType == 7 ? 7 : 1, value: try XMPPacketCheck.apply(oldPacket ?? [], edits: edits, source: source))
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
        guard tiff.preservesUntouchedBytes else {
            throw .verificationFailed(source: source, differences: ["bytes outside the edited entries"])
        }
        // A strip or tile that overlaps the header, an IFD or a value the edit rewrote would decode
        // to other pixels afterwards (readers such as exiftool keep them): such a file is refused.
        if let overlap = tiff.touched.first(where: { touched in layout.imageData.contains { $0.overlaps(touched) } }) {
            throw .corrupt(source: source, reason: "its image data overlaps the header or metadata that the write would change (bytes \(overlap.lowerBound)..<\(overlap.upperBound)), so the pixels would change; nothing was written")
        }
        return tiff
    }

    /// Every IFD of `file` walked (IFD0 and its chain, SubIFDs, EXIF, GPS and interoperability IFDs):
    /// where its image data lies. A classic TIFF with an entry of a type only BigTIFF defines
    /// (16 LONG8, 17 SLONG8, 18 IFD8) is refused: exiftool cannot read such a file once written.
    private static func structure(of file: TIFFBlock, source: String) throws(MetadataError) -> TIFFWindow.Layout {
        let storage = file.storage
        let layout: TIFFWindow.Layout
        do {
            layout = try TIFFWindow.Layout.walk(size: storage.count, firstIFD: file.ifd0Offset, bigEndian: file.bigEndian) { count, offset in
                storage[offset..<(offset + count)]
            }
        } catch {
            throw .system(error, path: source, reason: error.reason)
        }
        if let entry = layout.bigTIFFOnlyEntries.first {
            let names: [UInt16: String] = [16: "LONG8", 17: "SLONG8", 18: "IFD8"]
            throw .corrupt(source: source, reason: "tag \(entry.tag) (0x\(String(entry.tag, radix: 16))) has type \(entry.type) (\(names[entry.type] ?? "")), which only BigTIFF files may use; other readers cannot read this classic TIFF once it is written, so nothing was written")
        }
        return layout
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
