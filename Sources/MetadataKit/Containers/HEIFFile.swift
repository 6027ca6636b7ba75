/// A HEIF, HEIC or AVIF file (ISO/IEC 23008-12 on ISO/IEC 14496-12): its top-level boxes and
/// the item tables of its `meta` box, so the EXIF and XMP items of the primary image can be
/// replaced or added while every image item keeps its data, properties and references byte
/// for byte (Docs/Metadata.md, "HEIC and AVIF").
struct HEIFFile {
    /// The two kinds of metadata item a caption write touches.
    enum MetadataKind: CaseIterable {
        /// An `Exif` item: a 4-byte offset to the TIFF header, then the EXIF block.
        case exif
        /// A `mime` item of content type `application/rdf+xml`: an XMP packet.
        case xmp

        var name: String { self == .exif ? "EXIF" : "XMP" }
    }

    /// One metadata item and its data.
    struct MetadataItem {
        let id: UInt32
        let data: [UInt8]
    }

    /// Top-level boxes that carry absolute file offsets of their own (movie and fragment
    /// tables): a write that moves data after the `meta` box would break them.
    static let offsetBearingBoxes: Set<String> = ["moov", "moof", "mfra", "sidx", "ssix", "meco"]

    /// Brands of still-image HEIF and AVIF files (ISO/IEC 23008-12 and the AV1 image format).
    static let imageBrands: Set<String> = ["mif1", "mif2", "msf1", "heic", "heix", "heim", "heis", "hevc", "hevx", "avif", "avis", "avci", "jpeg", "vvic"]

    let bytes: [UInt8]
    let source: String
    let topLevel: [BMFFBox]
    let meta: BMFFBox
    let metaChildren: [BMFFBox]
    let primaryItem: UInt32
    let locations: ItemLocations
    let infos: ItemInfoList
    let references: ItemReferences?
    /// The payload of the `meta` box's `idat`, which construction method 1 points into.
    let idat: Range<Int>?

    /// Whether `bytes` start like an ISO base media file (an `ftyp` box first).
    static func looksLikeBMFF(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && bytes[4..<8].elementsEqual("ftyp".utf8)
    }

    init(_ bytes: [UInt8], source: String) throws(MetadataError) {
        self.bytes = bytes
        self.source = source
        topLevel = try BMFFBox.boxes(in: bytes, 0..<bytes.count, allowsOpenEnd: true, source: source)
        guard let ftyp = topLevel.first, ftyp.typeName == "ftyp", ftyp.payload.count >= 8 else {
            throw .unsupportedFormat(source: source, reason: "not an ISO base media (HEIF/AVIF) file")
        }
        let brands = stride(from: ftyp.payloadStart, to: ftyp.end - 3, by: 4).filter { $0 != ftyp.payloadStart + 4 }
            .map { String(decoding: bytes[$0..<($0 + 4)], as: UTF8.self) }
        guard brands.contains(where: Self.imageBrands.contains) else {
            throw .unsupportedFormat(source: source, reason: "an ISO base media file with brands \(brands.joined(separator: ", ")) is not a HEIF or AVIF image")
        }
        let metas = topLevel.filter { $0.typeName == "meta" }
        guard metas.count == 1, let meta = metas.first else {
            throw .corrupt(source: source, reason: metas.isEmpty ? "the file has no 'meta' box" : "the file has \(metas.count) 'meta' boxes")
        }
        guard !meta.extendsToEnd, meta.payload.count >= 4 else {
            throw .unsupportedFormat(source: source, reason: "its 'meta' box has no explicit size, which cannot be rewritten safely")
        }
        self.meta = meta
        let children = try BMFFBox.boxes(in: bytes, (meta.payloadStart + 4)..<meta.end, source: source)
        metaChildren = children
        func single(_ type: String) throws(MetadataError) -> BMFFBox? {
            let found = children.filter { $0.typeName == type }
            guard found.count <= 1 else { throw .corrupt(source: source, reason: "its 'meta' box holds \(found.count) '\(type)' boxes") }
            return found.first
        }
        guard let handler = try single("hdlr"), handler.payload.count >= 12,
              bytes[(handler.payloadStart + 8)..<(handler.payloadStart + 12)].elementsEqual("pict".utf8) else {
            throw .unsupportedFormat(source: source, reason: "its 'meta' box does not describe pictures (no 'pict' handler)")
        }
        guard let pitm = try single("pitm"), let iloc = try single("iloc"), let iinf = try single("iinf") else {
            throw .corrupt(source: source, reason: "its 'meta' box lacks the primary item, item location or item information box")
        }
        var reader = BMFFReader(bytes, pitm.payload, source: source)
        let pitmVersion = try reader.uint8()
        _ = try reader.bytes(3)
        primaryItem = UInt32(try reader.uint(size: pitmVersion == 0 ? 2 : 4))
        locations = try ItemLocations(payload: iloc.payload, of: bytes, source: source)
        infos = try ItemInfoList(payload: iinf.payload, of: bytes, source: source)
        references = try single("iref").map { box throws(MetadataError) in try ItemReferences(payload: box.payload, of: bytes, source: source) }
        idat = try single("idat")?.payload
        guard infos.entries.contains(where: { $0.itemID == primaryItem }) else {
            throw .corrupt(source: source, reason: "its primary item \(primaryItem) is not described")
        }
    }

    /// The MIME type by the major brand, as libexiv2 names it: `image/avif`, `image/heic` or `image/heif`.
    var mimeType: String {
        let major = String(decoding: bytes[(topLevel[0].payloadStart)..<(topLevel[0].payloadStart + 4)], as: UTF8.self)
        switch major {
        case "avif", "avis", "avio": return "image/avif"
        case "heic", "heix", "heim", "heis": return "image/heic"
        default: return "image/heif"
        }
    }

    // MARK: Reading items

    /// Where an item's data is, as ranges of `bytes`; nil when it lies elsewhere (in another
    /// file, or built from other items by construction method 2). `fileSize`, for a `HEIFFile`
    /// made of a file's `ftyp` and `meta` boxes alone (the fast scan), gives data stored by file
    /// offset as ranges of that file instead; data in `idat` is still in `bytes`.
    func ranges(of entry: ItemLocations.Entry, fileSize: Int? = nil) throws(MetadataError) -> [Range<Int>]? {
        guard entry.dataReferenceIndex == 0, entry.constructionMethod <= 1 else { return nil }
        let container: Range<Int>
        if entry.constructionMethod == 1 {
            guard let idat else { throw .corrupt(source: source, reason: "item \(entry.itemID) points into an 'idat' box that is missing") }
            container = idat
        } else {
            container = 0..<(fileSize ?? bytes.count)
        }
        var result: [Range<Int>] = []
        for extent in entry.extents {
            let (start, overflow) = entry.baseOffset.addingReportingOverflow(extent.offset)
            let available = UInt64(container.count)
            guard !overflow, start <= available, extent.length <= available - start else {
                throw .corrupt(source: source, reason: "the data of item \(entry.itemID) lies outside the file")
            }
            let lower = container.lowerBound + Int(start)
            // A length of 0 means "to the end of the container".
            result.append(lower..<(extent.length == 0 ? container.upperBound : lower + Int(extent.length)))
        }
        return result
    }

    /// The data of item `id` (its extents joined); nil when it is not stored in this file.
    func data(ofItem id: UInt32) throws(MetadataError) -> [UInt8]? {
        guard let entry = locations.entries.first(where: { $0.itemID == id }) else { return nil }
        return try ranges(of: entry).map { $0.flatMap { bytes[$0] } }
    }

    /// The ids of the `kind` items that describe the primary image: those with a `cdsc`
    /// reference to it, else those that describe no item in particular.
    func metadataItemIDs(_ kind: MetadataKind) -> [UInt32] {
        let candidates = infos.entries.filter { kind == .exif ? $0.itemType == "Exif" : $0.isXMP }.map(\.itemID)
        let describing = candidates.filter { references?.described(by: $0).contains(primaryItem) == true }
        if !describing.isEmpty { return describing }
        return candidates.filter { references?.described(by: $0).isEmpty ?? true }
    }

    /// The primary image's `kind` item; throws when there are several (which one a reader
    /// believes would be a guess) or when its data is not in the file.
    func metadataItem(_ kind: MetadataKind) throws(MetadataError) -> MetadataItem? {
        let ids = metadataItemIDs(kind)
        guard ids.count <= 1 else {
            throw .unsupportedFormat(source: source, reason: "it has \(ids.count) \(kind.name) items for its primary image, so which one readers use is unclear")
        }
        guard let id = ids.first else { return nil }
        guard let data = try data(ofItem: id) else {
            throw .unsupportedFormat(source: source, reason: "its \(kind.name) item is stored by reference (in another file or built from other items)")
        }
        return MetadataItem(id: id, data: data)
    }

    /// Splits an `Exif` item's data into what precedes the TIFF header (the 4-byte
    /// `exif_tiff_header_offset` and usually `Exif\0\0`) and the TIFF block.
    static func splitEXIFItem(_ data: [UInt8]) -> (prefix: [UInt8], tiff: [UInt8])? {
        func isTIFF(at offset: Int) -> Bool {
            offset >= 0 && offset + 8 <= data.count
                && (data[offset..<(offset + 4)].elementsEqual([0x49, 0x49, 0x2A, 0x00]) || data[offset..<(offset + 4)].elementsEqual([0x4D, 0x4D, 0x00, 0x2A]))
        }
        if isTIFF(at: 0) { return ([], data) }  // some early writers left out the offset
        guard data.count >= 4 else { return nil }
        let declared = data[0..<4].reduce(0) { $0 << 8 | Int($1) }
        let start = declared <= data.count ? 4 + declared : -1
        if isTIFF(at: start) { return (Array(data[..<start]), Array(data[start...])) }
        if data.starts(with: JPEGFile.exifSignature), isTIFF(at: 6) { return (Array(data[..<6]), Array(data[6...])) }
        return nil
    }

    /// The primary image's EXIF item split into what precedes its TIFF header and the TIFF
    /// block, when there is one.
    func exifBlock() throws(MetadataError) -> (prefix: [UInt8], tiff: [UInt8])? {
        guard let item = try metadataItem(.exif) else { return nil }
        guard let split = Self.splitEXIFItem(item.data) else {
            throw .corrupt(source: source, reason: "its EXIF item does not hold a TIFF header where it says")
        }
        return split
    }

    /// The EXIF TIFF block of the primary image, when there is one.
    func exifTIFF() throws(MetadataError) -> [UInt8]? { try exifBlock()?.tiff }

    // MARK: Writing items

    /// The file with new data for the primary image's EXIF and XMP items (nil leaves that kind
    /// alone). An item whose new data fits its single extent is rewritten in place; otherwise
    /// it moves to a new `mdat` box at the end, and its old bytes are zeroed (or dropped, when
    /// they filled the last `mdat` box alone, as after an earlier write). Missing items are
    /// added with a `cdsc` reference to the primary image. When the `meta` box grows, a `free`
    /// box after it shrinks, or every file offset behind it moves by the growth.
    func settingMetadata(exif: [UInt8]?, xmp: [UInt8]?) throws(MetadataError) -> [UInt8] {
        var out = bytes
        var locations = self.locations
        var infos = self.infos
        var references = self.references ?? ItemReferences()
        var appended: [(id: UInt32, data: [UInt8])] = []
        var released: [Range<Int>] = []
        let changing = Set(MetadataKind.allCases.filter { ($0 == .exif ? exif : xmp) != nil }.flatMap(metadataItemIDs))
        var kept: [Range<Int>] = []
        for entry in self.locations.entries where !changing.contains(entry.itemID) {
            kept += try ranges(of: entry) ?? []
        }
        var nextID = (locations.entries.map(\.itemID) + infos.entries.map(\.itemID)).max().map { $0 + 1 } ?? 1
        // The last box is an `mdat` of our own (an earlier write's) when it holds nothing but
        // the items being replaced and zeros: it is dropped and rebuilt, so files do not grow.
        var changingRanges: [Range<Int>] = []
        for entry in self.locations.entries where changing.contains(entry.itemID) {
            changingRanges += try ranges(of: entry) ?? []
        }
        var tailEnd = bytes.count
        if let last = topLevel.last, last.typeName == "mdat", last.start >= meta.end, !last.payload.isEmpty,
           !kept.contains(where: { $0.overlaps(last.payload) }), changingRanges.contains(where: { $0.overlaps(last.payload) }),
           last.payload.allSatisfy({ position in bytes[position] == 0 || changingRanges.contains { $0.contains(position) } }) {
            tailEnd = last.start
        }

        for kind in MetadataKind.allCases {
            guard let data = kind == .exif ? exif : xmp else { continue }
            if let item = try metadataItem(kind) {
                guard let index = locations.entries.firstIndex(where: { $0.itemID == item.id }),
                      let old = try ranges(of: locations.entries[index]) else {
                    throw .corrupt(source: source, reason: "its \(kind.name) item has no location")
                }
                var entry = locations.entries[index]
                let exclusive = !old.contains { range in kept.contains { $0.overlaps(range) } }
                if entry.constructionMethod == 0, old.count == 1, old[0].count >= data.count, old[0].upperBound <= tailEnd,
                   exclusive, locations.lengthSize > 0 {
                    out.replaceSubrange(old[0].lowerBound..<(old[0].lowerBound + data.count), with: data)
                    out.replaceSubrange((old[0].lowerBound + data.count)..<old[0].upperBound, with: repeatElement(0, count: old[0].count - data.count))
                    entry.extents = [ItemLocations.Extent(index: entry.extents[0].index, offset: entry.extents[0].offset, length: UInt64(data.count))]
                } else {
                    if exclusive { released += old }
                    entry.constructionMethod = 0
                    entry.extents = [ItemLocations.Extent(index: 0, offset: 0, length: 0)]
                    appended.append((item.id, data))
                }
                locations.entries[index] = entry
            } else {
                let limit = min(locations.maximumItemID, references.version == 0 ? UInt32(UInt16.max) : UInt32.max,
                                infos.version == 0 ? UInt32(UInt16.max) : UInt32.max)
                guard nextID <= limit, infos.entries.count < Int(limit) else {
                    throw .unsupportedFormat(source: source, reason: "its item tables have no room for another item")
                }
                infos.entries.append(ItemInfo(newItem: nextID, type: kind == .exif ? "Exif" : "mime",
                                              contentType: kind == .xmp ? "application/rdf+xml" : nil))
                references.references.append(.init(type: Array("cdsc".utf8), from: nextID, to: [primaryItem]))
                locations.entries.append(.init(itemID: nextID, constructionMethod: 0, reservedBits: 0, dataReferenceIndex: 0,
                                               baseOffset: 0, extents: [.init(index: 0, offset: 0, length: 0)]))
                appended.append((nextID, data))
                nextID += 1
            }
        }
        if !appended.isEmpty, locations.lengthSize == 0 || (locations.offsetSize == 0 && locations.baseOffsetSize == 0) {
            throw .unsupportedFormat(source: source, reason: "its item location box has no room for the position or length of new data")
        }

        for range in released where range.upperBound <= tailEnd {
            out.replaceSubrange(range, with: repeatElement(0, count: range.count))
        }
        // A last box that ran "to the end of the file" gets its size, since data follows it now.
        if !appended.isEmpty, let last = topLevel.last(where: { $0.start < tailEnd }), last.extendsToEnd {
            guard last.headerSize == 8, last.size <= Int(UInt32.max) else {
                throw .unsupportedFormat(source: source, reason: "its last box has no size, and giving it one would move its data")
            }
            out.replaceSubrange(last.start..<(last.start + 4), with: BigEndian.bytes(UInt64(last.size), size: 4))
        }

        // The new `meta` box; iloc's size depends only on its field sizes and entry count, so
        // placeholder positions give the final size.
        let newMetaSize = metaBox(from: out, locations: locations, infos: infos, references: references).count
        let growth = newMetaSize - meta.size
        var middleStart = meta.end
        var absorbingFree: [UInt8] = []
        var shift = 0
        if growth != 0 {
            let index = topLevel.firstIndex(of: meta)! + 1
            if growth > 0, index < topLevel.count, ["free", "skip"].contains(topLevel[index].typeName),
               topLevel[index].headerSize == 8, topLevel[index].size == growth || topLevel[index].size - growth >= 8 {
                let free = topLevel[index]
                middleStart = free.end
                absorbingFree = free.size == growth ? [] : BMFFBox.encode(free.typeName, [UInt8](repeating: 0, count: free.size - growth - 8))
            } else {
                shift = growth
                if let box = topLevel.first(where: { $0.start >= meta.end && $0.start < tailEnd && Self.offsetBearingBoxes.contains($0.typeName) }) {
                    throw .unsupportedFormat(source: source, reason: "it has a '\(box.typeName)' box (an image sequence or movie) whose offsets would move")
                }
            }
        }
        if shift != 0 {
            for index in locations.entries.indices where !appended.contains(where: { $0.id == locations.entries[index].itemID }) {
                try shiftEntry(&locations.entries[index], by: shift, behind: meta, sizes: locations)
            }
        }

        // New data goes into one `mdat` at the end.
        let prefixLength = meta.start + newMetaSize + absorbingFree.count + (tailEnd - middleStart)
        // Positions follow the file's own convention: in the base offset when its items use
        // base offsets (some readers, libexiv2 among them, look only there), else in the extent.
        let inBase = locations.baseOffsetSize > 0 && (locations.offsetSize == 0 || self.locations.entries.contains { $0.baseOffset != 0 })
        var position = prefixLength + 8
        var mdatPayload: [UInt8] = []
        for (id, data) in appended {
            let index = locations.entries.firstIndex { $0.itemID == id }!
            let (base, offset) = inBase ? (UInt64(position), UInt64(0)) : (UInt64(0), UInt64(position))
            guard BigEndian.fits(base, size: locations.baseOffsetSize), BigEndian.fits(offset, size: locations.offsetSize),
                  BigEndian.fits(UInt64(data.count), size: locations.lengthSize) else {
                throw .unsupportedFormat(source: source, reason: "the file would be too large for its item location box's 32-bit offsets")
            }
            locations.entries[index].baseOffset = base
            locations.entries[index].extents = [.init(index: 0, offset: offset, length: UInt64(data.count))]
            mdatPayload += data
            position += data.count
        }
        let newMeta = metaBox(from: out, locations: locations, infos: infos, references: references)
        guard newMeta.count == newMetaSize else { throw .corrupt(source: source, reason: "its item location box changed size unexpectedly") }
        var result = Array(out[..<meta.start])
        result.reserveCapacity(prefixLength + mdatPayload.count + 8)
        result += newMeta
        result += absorbingFree
        result += out[middleStart..<tailEnd]
        if !appended.isEmpty { result += BMFFBox.encode("mdat", mdatPayload) }
        return result
    }

    /// Moves the file-offset extents of `entry` that lie behind `meta` by `shift` bytes.
    private func shiftEntry(_ entry: inout ItemLocations.Entry, by shift: Int, behind meta: BMFFBox, sizes: ItemLocations) throws(MetadataError) {
        guard entry.constructionMethod == 0, entry.dataReferenceIndex == 0 else { return }
        let starts = entry.extents.map { entry.baseOffset &+ $0.offset }
        if starts.contains(where: { $0 >= UInt64(meta.start) && $0 < UInt64(meta.end) }) {
            throw .unsupportedFormat(source: source, reason: "item \(entry.itemID) points inside the 'meta' box, which is rewritten")
        }
        let behind = starts.map { $0 >= UInt64(meta.end) }
        guard behind.contains(true) else { return }
        let tooLarge = MetadataError.unsupportedFormat(source: source, reason: "moved data would not fit the item location box's offset fields")
        if behind.allSatisfy({ $0 }), sizes.baseOffsetSize > 0, entry.baseOffset > 0 || sizes.offsetSize == 0 {
            let moved = UInt64(Int(entry.baseOffset) + shift)
            guard BigEndian.fits(moved, size: sizes.baseOffsetSize) else { throw tooLarge }
            entry.baseOffset = moved
            return
        }
        guard sizes.offsetSize > 0 else { throw tooLarge }
        for index in entry.extents.indices where behind[index] {
            let moved = UInt64(Int(entry.extents[index].offset) + shift)
            guard BigEndian.fits(moved, size: sizes.offsetSize) else { throw tooLarge }
            entry.extents[index].offset = moved
        }
    }

    /// The `meta` box with new item tables and every other child as it is in `current`
    /// (which may hold zeroed `idat` bytes); a missing `iref` is added after `iinf`.
    private func metaBox(from current: [UInt8], locations: ItemLocations, infos: ItemInfoList, references: ItemReferences) -> [UInt8] {
        var payload = Array(current[meta.payloadStart..<(meta.payloadStart + 4)])
        for child in metaChildren {
            switch child.typeName {
            case "iloc": payload += BMFFBox.encode("iloc", locations.payload)
            case "iinf":
                payload += BMFFBox.encode("iinf", infos.payload)
                if self.references == nil, !references.references.isEmpty { payload += BMFFBox.encode("iref", references.payload) }
            case "iref": payload += BMFFBox.encode("iref", references.payload)
            default: payload += current[child.start..<child.end]
            }
        }
        return BMFFBox.encode("meta", payload)
    }

    // MARK: Verifying

    /// Whether the bytes at `first` in `a` equal those at `second` in `b`, extent by extent
    /// with `memcmp` (image items are megabytes; no copy is made when both are one extent).
    private static func sameData(_ a: [UInt8], _ first: [Range<Int>], _ b: [UInt8], _ second: [Range<Int>]) -> Bool {
        guard first.reduce(0, { $0 + $1.count }) == second.reduce(0, { $0 + $1.count }) else { return false }
        if first.count == 1, second.count == 1 { return sameBytes(a[first[0]], b[second[0]]) }
        return sameBytes(ArraySlice(first.flatMap { a[$0] }), ArraySlice(second.flatMap { b[$0] }))
    }

    /// What differs between two versions of a file apart from the metadata items: each other
    /// item must keep its information entry, its data and its references, and the primary
    /// item, the item properties and every other box must stay as they were.
    static func differences(before: HEIFFile, after: HEIFFile, metadataItems: Set<UInt32>) -> [String] {
        var found: [String] = []
        if before.primaryItem != after.primaryItem { found.append("the primary item") }
        func otherChildren(_ file: HEIFFile) -> [ArraySlice<UInt8>] {
            file.metaChildren.filter { !["iloc", "iinf", "iref", "idat"].contains($0.typeName) }.map { file.bytes[$0.start..<$0.end] }
        }
        if otherChildren(before) != otherChildren(after) { found.append("the item properties or other 'meta' boxes") }
        func otherBoxes(_ file: HEIFFile) -> [ArraySlice<UInt8>] {
            file.topLevel.filter { !["meta", "mdat", "free", "skip"].contains($0.typeName) }.map { file.bytes[$0.start..<$0.end] }
        }
        if otherBoxes(before) != otherBoxes(after) { found.append("the boxes outside 'meta' and 'mdat'") }
        for info in before.infos.entries where !metadataItems.contains(info.itemID) {
            guard let counterpart = after.infos.entries.first(where: { $0.itemID == info.itemID }), counterpart.box == info.box else {
                found.append("the description of item \(info.itemID)")
                continue
            }
            let oldEntry = before.locations.entries.first { $0.itemID == info.itemID }
            let newEntry = after.locations.entries.first { $0.itemID == info.itemID }
            guard let oldEntry, let oldRanges = (try? before.ranges(of: oldEntry)) ?? nil else {
                // Stored by reference (or not at all): its location entry must be unchanged.
                if oldEntry != newEntry { found.append("the location of item \(info.itemID)") }
                continue
            }
            guard let newEntry, let newRanges = (try? after.ranges(of: newEntry)) ?? nil,
                  sameData(before.bytes, oldRanges, after.bytes, newRanges) else {
                found.append("the data of item \(info.itemID) (\(info.itemType))")
                continue
            }
        }
        let added = Set(after.infos.entries.map(\.itemID)).subtracting(before.infos.entries.map(\.itemID))
        func otherReferences(_ file: HEIFFile) -> [ItemReferences.Reference] {
            (file.references?.references ?? []).filter { !metadataItems.contains($0.from) && !added.contains($0.from) }
        }
        if otherReferences(before) != otherReferences(after) { found.append("the references between image items") }
        return found
    }
}
