@testable import MetadataKit

/// Builds small HEIF files box by box, so the tests can make the layouts cameras and tools
/// use (and the ones MetadataKit must refuse) without depending on one encoder's choices.
/// Image items hold arbitrary bytes: the writer never decodes them, it only must not change them.
struct HEIFBuilder {
    struct Item {
        var id: UInt32
        var type: String
        var contentType: String?
        var data: [UInt8]
        /// 0: in an `mdat` box; 1: in the `meta` box's `idat`; 2: construction method 2 (refused).
        var method: UInt8 = 0
        /// A `dref` index other than 0 (data in another file; refused for metadata items).
        var dataReference: UInt16 = 0
    }

    var items: [Item]
    var primary: UInt32 = 1
    var references: [(type: String, from: UInt32, to: [UInt32])] = []
    var ilocVersion: UInt8 = 1
    /// Positions in the base offset field (libheif, GIMP) rather than in the extent offset (Apple).
    var positionsInBase = false
    /// A `free` box of this many bytes right after `meta` (Sony leaves one).
    var freeAfterMeta: Int?
    var mdatBeforeMeta = false
    /// A last `mdat` whose size field is 0 ("to the end of the file").
    var openEndedMdat = false
    /// Whole boxes appended after the `mdat`.
    var trailingBoxes: [[UInt8]] = []

    /// An Exif item's data: `exif_tiff_header_offset` 6, `Exif\0\0`, a TIFF block with `caption`.
    static func exifItemData(caption: String) -> [UInt8] {
        [0, 0, 0, 6] + JPEGFile.exifSignature + JPEGCaptionEditor.newEXIF(caption: Array(caption.utf8) + [0])
    }

    /// An XMP packet with `caption` as `dc:description`.
    static func xmpPacket(caption: String) -> [UInt8] {
        Array("""
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">\
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" \
            xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:Rating>3</xmp:Rating>\
            <dc:description><rdf:Alt><rdf:li xml:lang="x-default">\(caption)</rdf:li>\
            <rdf:li xml:lang="fr">Légende</rdf:li></rdf:Alt></dc:description></rdf:Description></rdf:RDF></x:xmpmeta>\
            <?xpacket end="w"?>
            """.utf8)
    }

    /// A HEIC with a 3,000-byte image item, an Exif item and (optionally) an XMP item.
    static func photo(caption: String = "Old caption", withXMP: Bool = false) -> HEIFBuilder {
        var state: UInt64 = 7
        let image = (0..<3000).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        var builder = HEIFBuilder(items: [
            Item(id: 1, type: "hvc1", data: image),
            Item(id: 2, type: "Exif", data: exifItemData(caption: caption)),
        ])
        builder.references = [("cdsc", 2, [1])]
        if withXMP {
            builder.items.append(Item(id: 3, type: "mime", contentType: "application/rdf+xml", data: xmpPacket(caption: caption)))
            builder.references.append(("cdsc", 3, [1]))
        }
        return builder
    }

    func build() -> [UInt8] {
        let ftyp = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        let mdatItems = items.filter { $0.method != 1 }
        // Two passes: the meta box's size does not depend on the positions it holds.
        var meta = metaBox(mdatStart: 0)
        let metaSize = meta.count + (freeAfterMeta ?? 0)
        let mdatStart = mdatBeforeMeta ? ftyp.count : ftyp.count + metaSize
        meta = metaBox(mdatStart: mdatStart + 8)
        var mdat = box("mdat", mdatItems.flatMap(\.data))
        if openEndedMdat { mdat.replaceSubrange(0..<4, with: [0, 0, 0, 0]) }
        let free = freeAfterMeta.map { box("free", [UInt8](repeating: 0, count: $0 - 8)) } ?? []
        let body = mdatBeforeMeta ? mdat + meta + free : meta + free + mdat
        return ftyp + body + trailingBoxes.flatMap { $0 }
    }

    private func metaBox(mdatStart: Int) -> [UInt8] {
        let hdlr = box("hdlr", [0, 0, 0, 0] + [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 12) + [0])
        let pitm = box("pitm", [0, 0, 0, 0] + be(UInt64(primary), 2))
        var infos: [UInt8] = []
        for item in items {
            var payload: [UInt8] = [2, 0, 0, item.type == "hvc1" ? 0 : 1] + be(UInt64(item.id), 2) + [0, 0] + Array(item.type.utf8) + [0]
            if let contentType = item.contentType { payload += Array(contentType.utf8) + [0] }
            infos += box("infe", payload)
        }
        let iinf = box("iinf", [0, 0, 0, 0] + be(UInt64(items.count), 2) + infos)
        let idSize = ilocVersion == 2 ? 4 : 2
        var iloc: [UInt8] = [ilocVersion, 0, 0, 0, 0x44, 0x40] + be(UInt64(items.count), idSize)
        var mdatOffset = mdatStart
        var idatOffset = 0
        for item in items {
            iloc += be(UInt64(item.id), idSize)
            if ilocVersion >= 1 { iloc += [0, item.method] }
            iloc += be(UInt64(item.dataReference), 2)
            let position = item.method == 1 ? idatOffset : mdatOffset
            iloc += be(UInt64(positionsInBase ? position : 0), 4) + [0, 1]
            iloc += be(UInt64(positionsInBase ? 0 : position), 4) + be(UInt64(item.data.count), 4)
            if item.method == 1 { idatOffset += item.data.count } else { mdatOffset += item.data.count }
        }
        let iref = box("iref", [0, 0, 0, 0] + references.flatMap { reference in
            box(reference.type, be(UInt64(reference.from), 2) + be(UInt64(reference.to.count), 2) + reference.to.flatMap { be(UInt64($0), 2) })
        })
        let ispe = box("ispe", [0, 0, 0, 0] + be(640, 4) + be(480, 4))
        let ipma = box("ipma", [0, 0, 0, 0] + be(1, 4) + be(UInt64(primary), 2) + [1, 0x81])
        let iprp = box("iprp", box("ipco", ispe) + ipma)
        let idatData = items.filter { $0.method == 1 }.flatMap(\.data)
        let idat = idatData.isEmpty ? [] : box("idat", idatData)
        return box("meta", [0, 0, 0, 0] + hdlr + pitm + box("iloc", iloc) + iinf + (references.isEmpty ? [] : iref) + iprp + idat)
    }

    func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { BMFFBox.encode(type, payload) }

    private func be(_ value: UInt64, _ size: Int) -> [UInt8] { BigEndian.bytes(value, size: size) }
}
