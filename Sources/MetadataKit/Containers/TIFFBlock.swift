/// A TIFF structure (an EXIF block) edited surgically: values are changed in place
/// or appended at the end, and an IFD that must grow is rewritten at the end, so
/// no existing offset moves (MakerNotes and thumbnails stay valid).
struct TIFFBlock {
    /// One IFD entry.
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        /// The 4 raw bytes of the value/offset field, as stored.
        var field: [UInt8]
    }

    /// The block, edited in place over the original (which is never copied whole).
    private(set) var storage: PatchedBytes
    /// The edited block as one array (for blocks that are small: a JPEG's, PNG's or WebP's EXIF).
    var bytes: [UInt8] { storage.materialized }
    let bigEndian: Bool
    /// Every byte range of the original block that an edit overwrote (appended bytes excluded).
    private(set) var touched: [Range<Int>] = []
    /// The length of the block before any edit.
    let originalCount: Int

    /// Parses the header; fails when the block is not TIFF.
    init(_ bytes: [UInt8], source: String) throws(MetadataError) {
        try self.init(PatchedBytes(bytes), source: source)
    }

    /// Parses the header of a block kept elsewhere (a TIFF file's metadata in sparse memory).
    init(_ bytes: PatchedBytes, source: String) throws(MetadataError) {
        guard bytes.count >= 8 else { throw .corrupt(source: source, reason: "the EXIF block is too short") }
        switch (bytes[0], bytes[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: throw .corrupt(source: source, reason: "the EXIF block has no TIFF byte-order mark")
        }
        self.storage = bytes
        self.originalCount = bytes.count
        guard readUInt16(2) == 42 else { throw .corrupt(source: source, reason: "the EXIF block is not TIFF (magic is not 42)") }
        let offset = Int(readUInt32(4))
        guard offset >= 8, offset + 2 <= bytes.count else { throw .corrupt(source: source, reason: "the EXIF IFD0 offset points outside the block") }
        let count = Int(readUInt16(offset))
        guard offset + 2 + count * 12 + 4 <= bytes.count else { throw .corrupt(source: source, reason: "the EXIF IFD0 runs past the end of the block") }
    }

    /// `block` without the zeros that follow its last non-zero byte (kept even-sized, and never
    /// shorter than its header and IFD0 table), or nil when there are none to drop. Some cameras
    /// (Nikon) pad their EXIF block with zeros up to the 64 KB a JPEG segment holds; dropping the
    /// padding makes room for a caption. Anything that pointed into the zeros would no longer be
    /// found, and the verification, which compares every tag, would refuse the write.
    static func withoutTrailingPadding(_ block: [UInt8]) -> [UInt8]? {
        guard let parsed = try? TIFFBlock(block, source: "EXIF") else { return nil }
        guard let last = block.lastIndex(where: { $0 != 0 }) else { return nil }
        let tableEnd = parsed.ifd0Offset + 2 + parsed.ifd0Entries.count * 12 + 4
        var end = max(last + 1, tableEnd)
        if end % 2 == 1 { end += 1 }
        return end < block.count ? Array(block[..<end]) : nil
    }

    /// A new block holding only `entries` in IFD0 (for files that had no EXIF), big-endian.
    static func makeNew(ifd0: [(tag: UInt16, type: UInt16, count: UInt32, value: [UInt8])], exifIFD: [(tag: UInt16, type: UInt16, count: UInt32, value: [UInt8])]) -> [UInt8] {
        var block: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        // Layout: IFD0, Exif IFD, then out-of-line values.
        let ifd0Entries = ifd0.count + (exifIFD.isEmpty ? 0 : 1)
        let ifd0Size = 2 + ifd0Entries * 12 + 4
        let exifOffset = 8 + ifd0Size
        let exifSize = exifIFD.isEmpty ? 0 : 2 + exifIFD.count * 12 + 4
        var dataOffset = exifOffset + exifSize
        var data: [UInt8] = []
        func entry(_ e: (tag: UInt16, type: UInt16, count: UInt32, value: [UInt8])) -> [UInt8] {
            var out = be16(e.tag) + be16(e.type) + be32(e.count)
            if e.value.count <= 4 {
                out += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
            } else {
                out += be32(UInt32(dataOffset))
                data += e.value
                if e.value.count % 2 == 1 { data.append(0) }
                dataOffset += e.value.count + e.value.count % 2
            }
            return out
        }
        var all = ifd0
        if !exifIFD.isEmpty { all.append((0x8769, 4, 1, be32(UInt32(exifOffset)))) }
        all.sort { $0.tag < $1.tag }
        block += be16(UInt16(all.count))
        for e in all { block += entry(e) }
        block += [0, 0, 0, 0]
        if !exifIFD.isEmpty {
            block += be16(UInt16(exifIFD.count))
            for e in exifIFD.sorted(by: { $0.tag < $1.tag }) { block += entry(e) }
            block += [0, 0, 0, 0]
        }
        return block + data
    }

    var ifd0Offset: Int { Int(readUInt32(4)) }

    /// The entries of IFD0, in stored order.
    var ifd0Entries: [Entry] {
        let offset = ifd0Offset
        let count = Int(readUInt16(offset))
        return (0..<count).map { index in
            let start = offset + 2 + index * 12
            return Entry(tag: readUInt16(start), type: readUInt16(start + 2), count: readUInt32(start + 4),
                         field: storage[(start + 8)..<(start + 12)])
        }
    }

    /// Whether `range` lies inside the original block and overlaps neither the IFD0 table, nor
    /// another IFD0 entry's value, nor the image strips or tiles IFD0 points to.
    func isPrivate(_ range: Range<Int>, of tag: UInt16) -> Bool {
        guard range.lowerBound >= 8, range.upperBound <= originalCount else { return false }
        let table = ifd0Offset..<(ifd0Offset + 6 + ifd0Entries.count * 12)
        if range.overlaps(table) { return false }
        for entry in ifd0Entries where entry.tag != tag {
            let size = Self.typeSize(entry.type) * Int(entry.count)
            if size > 4 {
                let offset = Int(read32(entry.field))
                if range.overlaps(offset..<(offset + size)) { return false }
            }
        }
        for (offsetsTag, countsTag) in [(UInt16(273), UInt16(279)), (UInt16(324), UInt16(325)), (UInt16(513), UInt16(514))] {
            let offsets = numbers(ofIFD0Tag: offsetsTag), counts = numbers(ofIFD0Tag: countsTag)
            for (offset, length) in zip(offsets, counts) where range.overlaps(offset..<(offset + max(length, 0))) {
                return false
            }
        }
        return true
    }

    /// The SHORT or LONG values of an IFD0 tag (strip offsets and lengths), empty when absent.
    private func numbers(ofIFD0Tag tag: UInt16) -> [Int] {
        guard let entry = ifd0Entries.first(where: { $0.tag == tag }), let raw = value(ofIFD0Tag: tag) else { return [] }
        let width = entry.type == 3 ? 2 : 4
        guard entry.type == 3 || entry.type == 4 else { return [] }
        return stride(from: 0, to: raw.count - width + 1, by: width).map { index in
            let slice = Array(raw[index..<(index + width)])
            return width == 2 ? Int(bigEndian ? UInt16(slice[0]) << 8 | UInt16(slice[1]) : UInt16(slice[1]) << 8 | UInt16(slice[0])) : Int(read32(slice))
        }
    }

    /// A reason not to edit this block, or nil when IFD0 is sound: every out-of-line value
    /// inside the block and clear of the IFD0 table (and, when `strictOrder`, tags in
    /// ascending order without duplicates, as TIFF files must have; camera EXIF often does not).
    func ifd0Problem(strictOrder: Bool) -> String? {
        let table = ifd0Offset..<(ifd0Offset + 6 + ifd0Entries.count * 12)
        if ifd0Entries.count >= 0xFF00 { return "its IFD0 has an implausible number of entries" }
        var previous: UInt16?
        for entry in ifd0Entries {
            if strictOrder, let previous, entry.tag <= previous { return "its IFD0 tags are out of order or repeated" }
            previous = entry.tag
            let size = Self.typeSize(entry.type) * Int(entry.count)
            guard size > 4 else { continue }
            let offset = Int(read32(entry.field))
            if offset < 8 || offset + size > storage.count { return "IFD0 tag 0x\(String(entry.tag, radix: 16)) points outside the file" }
            if offset < table.upperBound && table.lowerBound < offset + size {
                return "IFD0 tag 0x\(String(entry.tag, radix: 16)) points into the IFD0 table itself"
            }
        }
        return nil
    }

    /// The raw value bytes of an IFD0 tag, or nil when absent or out of bounds.
    func value(ofIFD0Tag tag: UInt16) -> [UInt8]? {
        guard let entry = ifd0Entries.first(where: { $0.tag == tag }) else { return nil }
        let size = Self.typeSize(entry.type) * Int(entry.count)
        if size <= 4 { return Array(entry.field.prefix(size)) }
        let offset = Int(read32(entry.field))
        guard offset >= 8, offset + size <= storage.count else { return nil }
        return storage[offset..<(offset + size)]
    }

    /// Sets an IFD0 tag to `value` (type 2 ASCII or 1 BYTE), in place when it fits,
    /// else at the end of the block; adds the entry (rewriting IFD0 at the end) when missing.
    mutating func setIFD0(tag: UInt16, type: UInt16, value: [UInt8], countOverride: UInt32? = nil) {
        let count = countOverride ?? UInt32(value.count)
        let offset = ifd0Offset
        let entryCount = Int(readUInt16(offset))
        if let index = (0..<entryCount).first(where: { readUInt16(offset + 2 + $0 * 12) == tag }) {
            let start = offset + 2 + index * 12
            let oldSize = Self.typeSize(readUInt16(start + 2)) * Int(readUInt32(start + 4))
            let oldOffset = Int(readUInt32(start + 8))
            // The old value's own bytes are reused (or zeroed) only when they belong to it alone:
            // inside the original block, clear of the IFD0 table, other IFD0 values and image strips.
            var reusable = oldSize > 4 && isPrivate(oldOffset..<(oldOffset + oldSize), of: tag)
            write16(start + 2, type)
            write32(start + 4, count)
            if reusable, oldOffset + oldSize >= storage.count - 1 {
                // The old value ends the block (an earlier write appended it): the block is cut
                // back to where it starts, so writing captions again and again does not grow it.
                touched.append(oldOffset..<originalCount)
                storage.cut(to: oldOffset)
                reusable = false
            }
            if value.count <= 4 {
                replace(start + 8, with: value + [UInt8](repeating: 0, count: 4 - value.count))
                if reusable { replace(oldOffset, with: [UInt8](repeating: 0, count: oldSize)) }
            } else if reusable, value.count <= oldSize {
                replace(oldOffset, with: value + [UInt8](repeating: 0, count: oldSize - value.count))
            } else {
                if reusable { replace(oldOffset, with: [UInt8](repeating: 0, count: oldSize)) }
                write32(start + 8, UInt32(append(value)))
            }
            return
        }
        // A new entry: IFD0 grows, so it is rewritten at the end with the entry in tag order.
        var entries = ifd0Entries
        let next = readUInt32(offset + 2 + entryCount * 12)
        var field = [UInt8](repeating: 0, count: 4)
        if value.count <= 4 {
            field = value + [UInt8](repeating: 0, count: 4 - value.count)
        } else {
            field = encode32(UInt32(append(value)))
        }
        entries.append(Entry(tag: tag, type: type, count: count, field: field))
        entries.sort { $0.tag < $1.tag }
        rewriteIFD0(entries, next: next)
    }

    /// Sets the IPTC-NAA tag (33723) to an IIM block, keeping its type: LONG (padded to whole
    /// longs, as Photoshop writes it) or UNDEFINED (also when the tag is new).
    mutating func setIPTC(_ iim: [UInt8]) {
        let type = ifd0Entries.first { $0.tag == TIFFCaptionEditor.iptcTag }?.type ?? 7
        var padded = iim
        if type == 4 { while padded.count % 4 != 0 { padded.append(0) } }
        setIFD0(tag: TIFFCaptionEditor.iptcTag, type: type == 4 ? 4 : 7, value: padded, countOverride: type == 4 ? UInt32(padded.count / 4) : nil)
    }

    /// Removes the GPS directory: the IFD0 pointer goes, and the GPS IFD and its values are
    /// zeroed where they lie inside the block and belong to nothing else.
    mutating func stripGPS() {
        guard let entry = ifd0Entries.first(where: { $0.tag == 0x8825 }) else { return }
        let gps = Int(read32(entry.field))
        if gps >= 8, gps + 2 <= originalCount {
            let count = Int(readUInt16(gps))
            let table = gps..<(gps + 2 + count * 12 + 4)
            if table.upperBound <= originalCount, isPrivate(table, of: 0x8825) {
                for index in 0..<count {
                    let start = gps + 2 + index * 12
                    let size = Self.typeSize(readUInt16(start + 2)) * Int(readUInt32(start + 4))
                    let offset = Int(readUInt32(start + 8))
                    if size > 4, offset + size <= originalCount, isPrivate(offset..<(offset + size), of: 0x8825),
                       !(offset..<(offset + size)).overlaps(table) {
                        replace(offset, with: [UInt8](repeating: 0, count: size))
                    }
                }
                replace(gps, with: [UInt8](repeating: 0, count: table.count))
            }
        }
        removeIFD0(tag: 0x8825)
    }

    /// The Panasonic maker-note tags that hold place names (Location, Country, State, City, Landmark, City2).
    static let panasonicLocationTags: Set<UInt16> = [0x0067, 0x0069, 0x006B, 0x006D, 0x006F, 0x0080]

    /// Zeroes the place names in a Panasonic maker note (``panasonicLocationTags``), in place: the
    /// maker note keeps its size and every offset, and the fields stay, empty. Other maker notes are
    /// left as they are.
    mutating func clearMakerNoteLocation() {
        guard let exifPointer = ifd0Entries.first(where: { $0.tag == 0x8769 }) else { return }
        let exif = Int(read32(exifPointer.field))
        guard exif >= 8, exif + 2 <= originalCount else { return }
        let exifCount = Int(readUInt16(exif))
        guard exif + 2 + exifCount * 12 <= originalCount else { return }
        guard let makerNote = (0..<exifCount).map({ exif + 2 + $0 * 12 }).first(where: { readUInt16($0) == 0x927C }) else { return }
        let noteSize = Int(readUInt32(makerNote + 4)), note = Int(readUInt32(makerNote + 8))
        let header = Array("Panasonic".utf8) + [0, 0, 0]
        guard noteSize > 14, note >= 8, note + noteSize <= originalCount, Array(storage[note..<(note + 12)]) == header else { return }
        let ifd = note + 12
        let count = Int(readUInt16(ifd))
        guard ifd + 2 + count * 12 <= note + noteSize else { return }
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard Self.panasonicLocationTags.contains(readUInt16(entry)) else { continue }
            let size = Self.typeSize(readUInt16(entry + 2)) * Int(readUInt32(entry + 4))
            if size <= 4 {
                replace(entry + 8, with: [0, 0, 0, 0])
            } else {
                // Panasonic's offsets count from the TIFF header, like EXIF's own.
                let offset = Int(readUInt32(entry + 8))
                guard offset >= 8, offset + size <= originalCount, size <= 4096 else { continue }
                if storage[offset..<(offset + size)].contains(where: { $0 != 0 }) { replace(offset, with: [UInt8](repeating: 0, count: size)) }
            }
        }
    }

    /// Removes an IFD0 tag (IFD0 shrinks in place); its out-of-line value is zeroed.
    mutating func removeIFD0(tag: UInt16) {
        let offset = ifd0Offset
        let count = Int(readUInt16(offset))
        guard let index = (0..<count).first(where: { readUInt16(offset + 2 + $0 * 12) == tag }) else { return }
        let start = offset + 2 + index * 12
        let size = Self.typeSize(readUInt16(start + 2)) * Int(readUInt32(start + 4))
        if size > 4 {
            let valueOffset = Int(readUInt32(start + 8))
            if valueOffset >= 8, valueOffset + size <= storage.count { replace(valueOffset, with: [UInt8](repeating: 0, count: size)) }
        }
        let next = storage[(offset + 2 + count * 12)..<(offset + 6 + count * 12)]
        var rest = storage[(start + 12)..<(offset + 2 + count * 12)]
        rest += next + [UInt8](repeating: 0, count: 12)
        write16(offset, UInt16(count - 1))
        replace(start, with: rest)
    }

    private mutating func rewriteIFD0(_ entries: [Entry], next: UInt32) {
        var ifd = encode16(UInt16(entries.count))
        for entry in entries { ifd += encode16(entry.tag) + encode16(entry.type) + encode32(entry.count) + entry.field }
        ifd += encode32(next)
        let newOffset = append(ifd)
        write32(4, UInt32(newOffset))
    }

    /// Appends `data` at an even offset at the end of the block and returns that offset.
    private mutating func append(_ data: [UInt8]) -> Int {
        if storage.count % 2 == 1 { storage.append([0]) }
        let offset = storage.count
        storage.append(data)
        return offset
    }

    static func typeSize(_ type: UInt16) -> Int {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12, 16, 17, 18: 8
        default: 1
        }
    }

    private func readUInt16(_ offset: Int) -> UInt16 {
        let a = UInt16(storage[offset]), b = UInt16(storage[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    private func readUInt32(_ offset: Int) -> UInt32 { read32(storage[offset..<(offset + 4)]) }

    private func read32(_ field: [UInt8]) -> UInt32 {
        let v = field.map(UInt32.init)
        return bigEndian ? v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3] : v[3] << 24 | v[2] << 16 | v[1] << 8 | v[0]
    }

    private func encode16(_ value: UInt16) -> [UInt8] {
        bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    private func encode32(_ value: UInt32) -> [UInt8] {
        let b = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        return bigEndian ? b : b.reversed()
    }

    private mutating func write16(_ offset: Int, _ value: UInt16) { replace(offset, with: encode16(value)) }
    private mutating func write32(_ offset: Int, _ value: UInt32) { replace(offset, with: encode32(value)) }
    private mutating func replace(_ offset: Int, with data: [UInt8]) {
        if offset < originalCount { touched.append(offset..<min(offset + data.count, originalCount)) }
        storage.replace(at: offset, with: data)
    }

    /// Whether every byte of the original outside the touched ranges is unchanged, i.e. the
    /// edit only rewrote what it meant to and appended the rest.
    var preservesUntouchedBytes: Bool { storage.changesOnlyWithin(touched) }
}
