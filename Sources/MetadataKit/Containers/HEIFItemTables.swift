// The three item tables of a HEIF `meta` box that a metadata write edits: where each
// item's data is (`iloc`), what each item is (`iinf`), and how items refer to each other
// (`iref`). Each parses its box payload and serialises it back byte for byte when unchanged.

/// The item location box, `iloc` (ISO/IEC 14496-12 §8.11.3), versions 0 to 2.
struct ItemLocations: Equatable {
    /// One contiguous piece of an item's data.
    struct Extent: Equatable {
        var index: UInt64
        var offset: UInt64
        var length: UInt64
    }

    /// Where one item's data is.
    struct Entry: Equatable {
        var itemID: UInt32
        /// 0: file offsets; 1: offsets into the `meta` box's `idat`; 2: into another item.
        var constructionMethod: UInt8
        /// The 12 reserved bits before the construction method, kept as read.
        var reservedBits: UInt16
        /// 0: this file; otherwise an entry of the `dref` box (another file).
        var dataReferenceIndex: UInt16
        var baseOffset: UInt64
        var extents: [Extent]
    }

    var version: UInt8
    var flags: [UInt8]
    var offsetSize: Int
    var lengthSize: Int
    var baseOffsetSize: Int
    /// The size of `extent_index` (versions 1 and 2), or of the reserved nibble (version 0).
    var indexSize: Int
    var entries: [Entry]

    init(payload: Range<Int>, of bytes: [UInt8], source: String) throws(MetadataError) {
        var reader = BMFFReader(bytes, payload, source: source)
        version = try reader.uint8()
        flags = try reader.bytes(3)
        guard version <= 2 else { throw .unsupportedFormat(source: source, reason: "its item location box has version \(version), which is not known") }
        let sizes = try reader.bytes(2)
        offsetSize = Int(sizes[0] >> 4)
        lengthSize = Int(sizes[0] & 0x0F)
        baseOffsetSize = Int(sizes[1] >> 4)
        indexSize = Int(sizes[1] & 0x0F)
        for size in [offsetSize, lengthSize, baseOffsetSize] + (version == 0 ? [] : [indexSize]) where ![0, 4, 8].contains(size) {
            throw .corrupt(source: source, reason: "its item location box uses a \(size)-byte field")
        }
        let count = try reader.uint(size: version < 2 ? 2 : 4)
        entries = []
        for _ in 0..<count {
            let itemID = UInt32(try reader.uint(size: version < 2 ? 2 : 4))
            var method: UInt8 = 0
            var reserved: UInt16 = 0
            if version >= 1 {
                let field = try reader.uint16()
                method = UInt8(field & 0x0F)
                reserved = field >> 4
            }
            let reference = try reader.uint16()
            let base = try reader.uint(size: baseOffsetSize)
            let extentCount = try reader.uint16()
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                let index = version >= 1 ? try reader.uint(size: indexSize) : 0
                let offset = try reader.uint(size: offsetSize)
                let length = try reader.uint(size: lengthSize)
                extents.append(Extent(index: index, offset: offset, length: length))
            }
            entries.append(Entry(itemID: itemID, constructionMethod: method, reservedBits: reserved,
                                 dataReferenceIndex: reference, baseOffset: base, extents: extents))
        }
    }

    /// The box payload (version, flags and table).
    var payload: [UInt8] {
        var out: [UInt8] = [version] + flags
        out += [UInt8(offsetSize << 4 | lengthSize), UInt8(baseOffsetSize << 4 | indexSize)]
        let idSize = version < 2 ? 2 : 4
        out += BigEndian.bytes(UInt64(entries.count), size: idSize)
        for entry in entries {
            out += BigEndian.bytes(UInt64(entry.itemID), size: idSize)
            if version >= 1 { out += BigEndian.bytes(UInt64(entry.reservedBits) << 4 | UInt64(entry.constructionMethod), size: 2) }
            out += BigEndian.bytes(UInt64(entry.dataReferenceIndex), size: 2)
            out += BigEndian.bytes(entry.baseOffset, size: baseOffsetSize)
            out += BigEndian.bytes(UInt64(entry.extents.count), size: 2)
            for extent in entry.extents {
                if version >= 1 { out += BigEndian.bytes(extent.index, size: indexSize) }
                out += BigEndian.bytes(extent.offset, size: offsetSize) + BigEndian.bytes(extent.length, size: lengthSize)
            }
        }
        return out
    }

    /// Whether entries can hold more items (the count and ids are 16-bit before version 2).
    var maximumItemID: UInt32 { version < 2 ? UInt32(UInt16.max) : UInt32.max }
}

/// One item information entry, `infe` (ISO/IEC 14496-12 §8.11.6), with its box bytes kept.
struct ItemInfo: Equatable {
    /// The whole `infe` box as read (or as made for a new item).
    var box: [UInt8]
    var itemID: UInt32
    /// `Exif`, `mime`, `hvc1`, `av01`, `grid`…; empty for the old versions 0 and 1.
    var itemType: String
    var contentType: String
    var contentEncoding: String

    init(box range: BMFFBox, of bytes: [UInt8], source: String) throws(MetadataError) {
        var reader = BMFFReader(bytes, range.payload, source: source)
        let version = try reader.uint8()
        _ = try reader.bytes(3)
        box = Array(bytes[range.start..<range.end])
        contentType = ""
        contentEncoding = ""
        if version >= 2 {
            itemID = UInt32(try reader.uint(size: version == 2 ? 2 : 4))
            _ = try reader.uint16()  // item_protection_index
            itemType = String(decoding: try reader.bytes(4), as: UTF8.self)
            _ = reader.cString()  // item_name
            if itemType == "mime" {
                contentType = String(decoding: reader.cString(), as: UTF8.self)
                if reader.remaining > 0 { contentEncoding = String(decoding: reader.cString(), as: UTF8.self) }
            }
        } else {
            itemID = UInt32(try reader.uint16())
            itemType = ""
        }
    }

    /// A new hidden entry (flags 1, as cameras mark metadata items) of version 2, or 3 for ids above 65535.
    init(newItem itemID: UInt32, type: String, contentType: String? = nil) {
        let version: UInt8 = itemID > UInt32(UInt16.max) ? 3 : 2
        var payload: [UInt8] = [version, 0, 0, 1]
        payload += BigEndian.bytes(UInt64(itemID), size: version == 2 ? 2 : 4)
        payload += [0, 0] + Array(type.utf8) + [0]
        if let contentType { payload += Array(contentType.utf8) + [0] }
        box = BMFFBox.encode("infe", payload)
        self.itemID = itemID
        self.itemType = type
        self.contentType = contentType ?? ""
        self.contentEncoding = ""
    }

    /// Whether this item is an XMP packet (a `mime` item of type `application/rdf+xml`).
    var isXMP: Bool { itemType == "mime" && contentType.lowercased() == "application/rdf+xml" }
}

/// The item information box, `iinf`: a count and the `infe` boxes.
struct ItemInfoList: Equatable {
    var version: UInt8
    var flags: [UInt8]
    var entries: [ItemInfo]

    init(payload: Range<Int>, of bytes: [UInt8], source: String) throws(MetadataError) {
        var reader = BMFFReader(bytes, payload, source: source)
        version = try reader.uint8()
        flags = try reader.bytes(3)
        let count = try reader.uint(size: version == 0 ? 2 : 4)
        let boxes = try BMFFBox.boxes(in: bytes, reader.position..<payload.upperBound, source: source)
        let infos = boxes.filter { $0.typeName == "infe" }
        guard infos.count == count, boxes.count == infos.count else {
            throw .corrupt(source: source, reason: "its item information box declares \(count) items but holds \(boxes.count) boxes")
        }
        entries = []
        for box in infos { entries.append(try ItemInfo(box: box, of: bytes, source: source)) }
    }

    var payload: [UInt8] {
        [version] + flags + BigEndian.bytes(UInt64(entries.count), size: version == 0 ? 2 : 4) + entries.flatMap(\.box)
    }
}

/// The item reference box, `iref` (ISO/IEC 14496-12 §8.11.12): typed references between items.
struct ItemReferences: Equatable {
    struct Reference: Equatable {
        /// `cdsc` (describes), `dimg` (derived image), `thmb` (thumbnail), `auxl`…
        var type: [UInt8]
        var from: UInt32
        var to: [UInt32]
    }

    var version: UInt8
    var flags: [UInt8]
    var references: [Reference]

    init() {
        version = 0
        flags = [0, 0, 0]
        references = []
    }

    init(payload: Range<Int>, of bytes: [UInt8], source: String) throws(MetadataError) {
        var reader = BMFFReader(bytes, payload, source: source)
        version = try reader.uint8()
        flags = try reader.bytes(3)
        guard version <= 1 else { throw .unsupportedFormat(source: source, reason: "its item reference box has version \(version), which is not known") }
        let idSize = version == 0 ? 2 : 4
        references = []
        for box in try BMFFBox.boxes(in: bytes, reader.position..<payload.upperBound, source: source) {
            var inner = BMFFReader(bytes, box.payload, source: source)
            let from = UInt32(try inner.uint(size: idSize))
            let count = try inner.uint16()
            var to: [UInt32] = []
            for _ in 0..<count { to.append(UInt32(try inner.uint(size: idSize))) }
            guard inner.remaining == 0, box.headerSize == 8 else {
                throw .corrupt(source: source, reason: "its '\(box.typeName)' item reference has the wrong size")
            }
            references.append(Reference(type: box.type, from: from, to: to))
        }
    }

    var payload: [UInt8] {
        let idSize = version == 0 ? 2 : 4
        return [version] + flags + references.flatMap { reference in
            BMFFBox.encode(String(decoding: reference.type, as: UTF8.self),
                           BigEndian.bytes(UInt64(reference.from), size: idSize) + BigEndian.bytes(UInt64(reference.to.count), size: 2)
                               + reference.to.flatMap { BigEndian.bytes(UInt64($0), size: idSize) })
        }
    }

    /// The items that `item` describes (its `cdsc` references).
    func described(by item: UInt32) -> [UInt32] {
        references.filter { $0.type == Array("cdsc".utf8) && $0.from == item }.flatMap(\.to)
    }
}
