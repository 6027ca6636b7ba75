internal import MemoraSystem

/// Bytes edited without copying the original: a read-only base (an array, or a file's metadata in
/// ``SparseMemory``), the pages of it an edit changed, a point where it was cut back, and bytes
/// appended after. A TIFF edit changes a few IFD entries of a file of any size; this keeps the
/// cost of that edit to the pages it touched.
struct PatchedBytes {
    /// The original bytes.
    enum Base {
        case array([UInt8])
        case memory(SparseMemory)

        var count: Int {
            switch self {
            case .array(let bytes): bytes.count
            case .memory(let memory): memory.count
            }
        }

        subscript(index: Int) -> UInt8 {
            switch self {
            case .array(let bytes): bytes[index]
            case .memory(let memory): memory.bytes[index]
            }
        }

        func copy(_ range: Range<Int>, into target: inout [UInt8]) {
            switch self {
            case .array(let bytes): target += bytes[range]
            case .memory(let memory): target += UnsafeRawBufferPointer(rebasing: memory.bytes[range])
            }
        }
    }

    static let pageSize = 4096

    let base: Base
    /// Copies of the base's pages that an edit changed, by page number.
    private(set) var pages: [Int: [UInt8]] = [:]
    /// How much of the base is still part of the bytes (an edit may cut it back).
    private(set) var baseLength: Int
    /// The bytes after the base's part.
    private(set) var appended: [UInt8] = []

    init(_ base: Base) {
        self.base = base
        baseLength = base.count
    }

    init(_ bytes: [UInt8]) { self.init(.array(bytes)) }

    var count: Int { baseLength + appended.count }

    subscript(index: Int) -> UInt8 {
        precondition(index >= 0 && index < count, "index out of range")
        guard index < baseLength else { return appended[index - baseLength] }
        if let page = pages[index / Self.pageSize] { return page[index % Self.pageSize] }
        return base[index]
    }

    /// The bytes in `range`.
    subscript(range: Range<Int>) -> [UInt8] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range out of bounds")
        var result: [UInt8] = []
        result.reserveCapacity(range.count)
        var index = range.lowerBound
        while index < min(range.upperBound, baseLength) {
            let page = index / Self.pageSize
            let end = min(range.upperBound, baseLength, (page + 1) * Self.pageSize)
            if let copy = pages[page] {
                result += copy[(index - page * Self.pageSize)..<(end - page * Self.pageSize)]
            } else {
                base.copy(index..<end, into: &result)
            }
            index = end
        }
        if range.upperBound > baseLength {
            result += appended[(max(range.lowerBound, baseLength) - baseLength)..<(range.upperBound - baseLength)]
        }
        return result
    }

    /// Overwrites the bytes at `offset` (they must exist) with `data`.
    mutating func replace(at offset: Int, with data: [UInt8]) {
        precondition(offset >= 0 && offset + data.count <= count, "replacement out of bounds")
        var written = 0
        while written < data.count, offset + written < baseLength {
            let index = offset + written
            let page = index / Self.pageSize
            let pageStart = page * Self.pageSize
            var copy = pages[page] ?? self[pageStart..<min(pageStart + Self.pageSize, baseLength)]
            let length = min(data.count - written, copy.count - (index - pageStart), baseLength - index)
            copy.replaceSubrange((index - pageStart)..<(index - pageStart + length), with: data[written..<(written + length)])
            pages[page] = copy
            written += length
        }
        if written < data.count {
            let start = offset + written - baseLength
            appended.replaceSubrange(start..<(start + data.count - written), with: data[written...])
        }
    }

    /// Drops everything from `length` on.
    mutating func cut(to length: Int) {
        precondition(length >= 0 && length <= count, "cut out of bounds")
        if length <= baseLength {
            baseLength = length
            appended = []
            pages = pages.filter { $0.key * Self.pageSize < length }
        } else {
            appended.removeSubrange((length - baseLength)...)
        }
    }

    /// Adds `data` at the end.
    mutating func append(_ data: [UInt8]) { appended += data }

    /// The original bytes in `range` of the base.
    func original(_ range: Range<Int>) -> [UInt8] {
        var result: [UInt8] = []
        base.copy(range, into: &result)
        return result
    }

    /// All the bytes, as one array (for a small block such as a JPEG's EXIF).
    var materialized: [UInt8] { self[0..<count] }

    /// Whether the base's bytes outside `allowed` ranges are unchanged: every changed page differs
    /// from the base only inside them.
    func changesOnlyWithin(_ allowed: [Range<Int>]) -> Bool {
        // What was cut off counts as changed.
        for index in baseLength..<base.count where !allowed.contains(where: { $0.contains(index) }) { return false }
        for (page, copy) in pages {
            let start = page * Self.pageSize
            for offset in copy.indices where copy[offset] != base[start + offset] {
                let index = start + offset
                if !allowed.contains(where: { $0.contains(index) }) { return false }
            }
        }
        return true
    }
}

extension CaptionWriter {
    /// `ranges` without empty ones, sorted, with overlapping and adjacent ones joined.
    static func mergedRanges(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var merged: [Range<Int>] = []
        for range in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}
