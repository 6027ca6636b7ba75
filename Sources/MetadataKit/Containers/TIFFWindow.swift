import Foundation
internal import MemoraSystem

/// A TIFF or DNG file read without its image data, so that a metadata edit costs memory for the
/// metadata only: the IFDs are walked with positional reads, the strips and tiles they point to
/// are left out, and everything else is read into ``SparseMemory`` at its own offsets (TIFF offsets
/// are absolute). libexiv2 and the editors see a file of the full size whose image data reads as
/// zeros and never takes up memory; the new file copies the image data from the original.
struct TIFFWindow {
    /// The file.
    let path: String
    /// The file's bytes at their offsets, zero in ``holes``.
    let memory: SparseMemory
    /// The ranges not read: image data (page-aligned, clear of every IFD and metadata value).
    let holes: [Range<Int>]
    /// The version of the file read.
    let identity: FileStatus.Identity

    /// The most IFDs followed (IFD0 and its chain, SubIFDs, EXIF, GPS and interoperability IFDs).
    static let maximumIFDs = 256
    /// Image data ranges smaller than this are read with the rest (not worth a hole).
    static let minimumHole = 64 << 10

    /// The window of the TIFF at `path`, or nil when it is not a classic TIFF (BigTIFF is not written)
    /// or has no image data worth leaving out (the whole-file path then handles it).
    static func open(_ path: String) throws(MetadataError) -> TIFFWindow? {
        do {
            let file = try SystemFile(path)
            let status = try file.status()
            guard status.size >= 8, status.size <= Int64(Int32.max) * 2 else { return nil }
            let size = Int(status.size)
            let header = try file.readExactly(8, at: 0)
            let bigEndian: Bool
            switch (header[0], header[1], header[2], header[3]) {
            case (0x4D, 0x4D, 0x00, 0x2A): bigEndian = true
            case (0x49, 0x49, 0x2A, 0x00): bigEndian = false
            default: return nil
            }
            let layout = try Layout.walk(size: size, firstIFD: Int(read32(header, at: 4, bigEndian: bigEndian)), bigEndian: bigEndian) {
                count, offset throws(SystemError) in try file.readExactly(count, at: Int64(offset))
            }
            let holes = layout.holes(size: size)
            guard !holes.isEmpty else { return nil }
            // Without address space for the mapping (overcommit disabled), the whole-file path decides.
            guard let memory = try? SparseMemory(count: size) else { return nil }
            var start = 0
            for hole in holes + [size..<size] {
                if hole.lowerBound > start {
                    try file.readExactly(into: UnsafeMutableRawBufferPointer(rebasing: memory.bytes[start..<hole.lowerBound]), at: Int64(start))
                }
                start = hole.upperBound
            }
            return TIFFWindow(path: path, memory: memory, holes: holes, identity: status.identity)
        } catch {
            throw .system(error, path: path, reason: error.reason)
        }
    }

    /// The ranges that were read (the complement of ``holes``) within the first `length` bytes.
    func readRanges(upTo length: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for hole in holes + [memory.count..<memory.count] {
            let end = min(hole.lowerBound, length)
            if end > start { ranges.append(start..<end) }
            start = max(start, hole.upperBound)
        }
        return ranges
    }

    /// Whether `range` touches image data that was not read.
    func touchesHole(_ range: Range<Int>) -> Bool { holes.contains { $0.overlaps(range) } }

    /// What the walk of the IFDs found: image data, and the ranges that hold IFDs and metadata values.
    struct Layout {
        /// One IFD entry of a type only BigTIFF defines (16 LONG8, 17 SLONG8, 18 IFD8).
        struct BigTIFFEntry {
            var tag: UInt16
            var type: UInt16
        }

        var imageData: [Range<Int>] = []
        var metadata: [Range<Int>] = [0..<8]
        /// The entries of types that a classic TIFF cannot hold (readers such as exiftool refuse the file).
        var bigTIFFOnlyEntries: [BigTIFFEntry] = []

        /// Follows every IFD from the first, reading `count` bytes at an offset through `read`;
        /// unreadable parts end the walk of their branch.
        static func walk(size: Int, firstIFD: Int, bigEndian: Bool,
                         read: (_ count: Int, _ offset: Int) throws(SystemError) -> [UInt8]) throws(SystemError) -> Layout {
            var layout = Layout()
            var queue = [firstIFD]
            var visited = Set<Int>()
            while let offset = queue.popLast(), visited.count < maximumIFDs {
                guard offset >= 8, offset + 2 <= size, visited.insert(offset).inserted else { continue }
                let countBytes = try read(2, offset)
                let count = Int(read16(countBytes, at: 0, bigEndian: bigEndian))
                let tableEnd = offset + 2 + count * 12 + 4
                guard count > 0, tableEnd <= size else { continue }
                let table = try read(count * 12 + 4, offset + 2)
                layout.metadata.append(offset..<tableEnd)
                var arrays: [UInt16: [Int]] = [:]
                for index in 0..<count {
                    let entry = index * 12
                    let tag = read16(table, at: entry, bigEndian: bigEndian)
                    let type = read16(table, at: entry + 2, bigEndian: bigEndian)
                    let valueCount = Int(read32(table, at: entry + 4, bigEndian: bigEndian))
                    if (16...18).contains(type) { layout.bigTIFFOnlyEntries.append(BigTIFFEntry(tag: tag, type: type)) }
                    let length = TIFFBlock.typeSize(type) * valueCount
                    var value: [UInt8] = Array(table[(entry + 8)..<(entry + 12)])
                    if length > 4 {
                        let valueOffset = Int(read32(table, at: entry + 8, bigEndian: bigEndian))
                        guard valueOffset >= 8, length <= size, valueOffset + length <= size else { continue }
                        layout.metadata.append(valueOffset..<(valueOffset + length))
                        // Only the arrays the walk needs are read (offsets and lengths of strips, tiles and IFDs).
                        guard [273, 279, 324, 325, 330].contains(tag), length <= 16 << 20 else { continue }
                        value = try read(length, valueOffset)
                    }
                    guard type == 3 || type == 4 || type == 13 else { continue }
                    let width = type == 3 ? 2 : 4
                    let numbers = stride(from: 0, to: min(value.count, valueCount * width) - width + 1, by: width).map {
                        width == 2 ? Int(read16(value, at: $0, bigEndian: bigEndian)) : Int(read32(value, at: $0, bigEndian: bigEndian))
                    }
                    arrays[tag] = numbers
                    switch tag {
                    case 330, 34665, 34853, 40965: queue += numbers  // SubIFDs, EXIF, GPS, interoperability
                    default: break
                    }
                }
                for (offsetsTag, lengthsTag) in [(UInt16(273), UInt16(279)), (UInt16(324), UInt16(325))] {
                    for (start, length) in zip(arrays[offsetsTag] ?? [], arrays[lengthsTag] ?? []) where length > 0 && start < size {
                        layout.imageData.append(start..<min(size, start + length))
                    }
                }
                queue.append(Int(read32(table, at: count * 12, bigEndian: bigEndian)))
            }
            return layout
        }

        /// The image data minus every metadata range, shrunk to whole pages, in order.
        func holes(size: Int) -> [Range<Int>] {
            let page = PatchedBytes.pageSize
            let kept = CaptionWriter.mergedRanges(metadata)
            var holes: [Range<Int>] = []
            for data in CaptionWriter.mergedRanges(imageData) {
                var pieces = [data]
                for range in kept where range.overlaps(data) {
                    pieces = pieces.flatMap { piece -> [Range<Int>] in
                        guard piece.overlaps(range) else { return [piece] }
                        return [piece.lowerBound..<max(piece.lowerBound, range.lowerBound), min(piece.upperBound, range.upperBound)..<piece.upperBound]
                    }
                }
                for piece in pieces {
                    let start = (piece.lowerBound + page - 1) / page * page, end = piece.upperBound / page * page
                    if end - start >= minimumHole { holes.append(start..<end) }
                }
            }
            return holes
        }
    }

    private static func read16(_ bytes: [UInt8], at offset: Int, bigEndian: Bool) -> UInt16 {
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    private static func read32(_ bytes: [UInt8], at offset: Int, bigEndian: Bool) -> UInt32 {
        let value = (0..<4).map { UInt32(bytes[offset + $0]) }
        return bigEndian ? value[0] << 24 | value[1] << 16 | value[2] << 8 | value[3] : value[3] << 24 | value[2] << 16 | value[1] << 8 | value[0]
    }
}
