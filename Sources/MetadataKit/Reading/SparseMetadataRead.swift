import Foundation
internal import MemoraSystem

/// Reads only the parts of a JPEG, PNG, WebP or HEIF/AVIF file that can hold metadata, for the
/// fast scan (``MetadataReader/scan(contentsOf:)``): the image data, most of the file, is skipped.
///
/// - JPEG: the segments before the first scan, read in 64 KB steps, and that scan's marker.
/// - PNG: every chunk but the image data (`IDAT`, `fdAT`), read chunk header by chunk header,
///   so text and `eXIf` chunks after the image are found too; the result is a well-formed PNG.
/// - WebP: every chunk but the image data (`VP8 `, `VP8L`, `ALPH`, `ANMF`), of which only the
///   first 30 bytes are kept, enough for a simple file's frame header (its pixel size); the result
///   is a well-formed RIFF.
/// - HEIF/AVIF: the `ftyp` and `meta` boxes, wherever they are, then the bytes of the primary
///   image's Exif and XMP items.
///
/// TIFF and DNG are read through ``TIFFWindow`` instead: their directories and values may lie anywhere in the file.
/// Nil when the file is another format or its structure is not plain enough; the caller then
/// reads the whole file, which also reports any error.
enum SparseMetadataRead {
    /// What was read.
    enum Parts {
        /// A smaller but well-formed file of the same format: a JPEG cut after its first scan
        /// marker, a PNG or WebP without its image data.
        case file([UInt8])
        /// A HEIF/AVIF file's metadata.
        case heif(HEIFMetadata)
    }

    /// The metadata-bearing parts of the file at `path`, by its first bytes.
    static func parts(of path: String) -> Parts? {
        guard let file = PositionalFile(path) else { return nil }
        defer { file.release() }
        guard let start = file.read(min(12, file.size), at: 0) else { return nil }
        switch MetadataContainer(start) {
        case .jpeg: return jpegHeader(file).map(Parts.file)
        case .png: return pngWithoutImageData(file).map(Parts.file)
        case .webp: return webPWithoutImageData(file).map(Parts.file)
        case .heif: return heifMetadata(file, source: path).map(Parts.heif)
        case .tiff, nil: return nil
        }
    }

    /// What a HEIF/AVIF scan needs: the file's `ftyp` and `meta` boxes parsed, and the primary
    /// image's EXIF TIFF block and XMP packet.
    struct HEIFMetadata {
        var file: HEIFFile
        var exifTIFF: [UInt8]?
        var xmp: [UInt8]?
    }

    /// The largest metadata chunk or box read; a bigger one makes the caller read the whole file.
    static let largestPart = 16 << 20
    /// The largest number of chunks or boxes walked.
    static let mostParts = 100_000

    /// An open file read at positions.
    private struct PositionalFile {
        let file: SystemFile
        let size: Int

        init?(_ path: String) {
            guard let file = try? SystemFile(path), let size = try? file.size() else { return nil }
            self.file = file
            self.size = Int(size)
        }

        func release() { file.close() }

        /// Exactly `count` bytes at `offset`, or nil.
        func read(_ count: Int, at offset: Int) -> [UInt8]? {
            guard count >= 0, offset >= 0, count <= size - offset, count <= SparseMetadataRead.largestPart else { return nil }
            return try? file.readExactly(count, at: Int64(offset))
        }
    }

    /// The JPEG's bytes up to its first scan (the segments that hold metadata) and that scan's marker.
    private static func jpegHeader(_ file: PositionalFile) -> [UInt8]? {
        var bytes: [UInt8] = []
        func need(_ count: Int) -> Bool {
            while bytes.count < count {
                guard let more = file.read(min(64 << 10, file.size - bytes.count), at: bytes.count), !more.isEmpty else { return false }
                bytes += more
            }
            return true
        }
        var offset = 2
        while need(offset + 4) {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }
            if marker == 0xDA { return Array(bytes[..<(offset + 2)]) }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2 else { return nil }
            offset += 2 + length
        }
        return nil
    }

    /// A PNG without its image data chunks.
    private static func pngWithoutImageData(_ file: PositionalFile) -> [UInt8]? {
        guard let signature = file.read(8, at: 0), signature == PNGFile.signature else { return nil }
        var output = signature
        var offset = 8
        for _ in 0..<mostParts {
            guard let header = file.read(8, at: offset) else { return nil }
            let length = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: header[4..<8], as: UTF8.self)
            guard length <= file.size - offset - 12 else { return nil }
            if type != "IDAT" && type != "fdAT" {
                guard let chunk = file.read(12 + length, at: offset) else { return nil }
                output += chunk
            }
            offset += 12 + length
            if type == "IEND" { return output }
        }
        return nil
    }

    /// A WebP without its image data (the first bytes of each image chunk kept, sizes adjusted).
    private static func webPWithoutImageData(_ file: PositionalFile) -> [UInt8]? {
        guard let header = file.read(12, at: 0), header.starts(with: Array("RIFF".utf8)), header[8..<12].elementsEqual("WEBP".utf8) else {
            return nil
        }
        // A RIFF size past the end of the file is damage the whole-file readers refuse: so do we.
        let riffEnd = 8 + header[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
        guard riffEnd <= file.size else { return nil }
        var output = Array(header)
        var offset = 12
        for _ in 0..<mostParts {
            guard offset + 8 <= riffEnd else { break }
            guard let chunkHeader = file.read(8, at: offset) else { return nil }
            let type = String(decoding: chunkHeader[0..<4], as: UTF8.self)
            let size = chunkHeader[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
            guard size <= riffEnd - offset - 8 else { return nil }
            let kept = ["VP8 ", "VP8L", "ALPH", "ANMF"].contains(type) ? min(size, 30) : size
            guard let data = file.read(kept, at: offset + 8) else { return nil }
            output += chunkHeader[0..<4] + [UInt8(kept & 0xFF), UInt8(kept >> 8 & 0xFF), UInt8(kept >> 16 & 0xFF), UInt8(kept >> 24 & 0xFF)] + data
            if kept % 2 == 1 { output.append(0) }
            offset += 8 + size + size % 2
        }
        let riffSize = output.count - 8
        output.replaceSubrange(4..<8, with: [UInt8(riffSize & 0xFF), UInt8(riffSize >> 8 & 0xFF), UInt8(riffSize >> 16 & 0xFF), UInt8(riffSize >> 24 & 0xFF)])
        return output
    }

    /// A HEIF/AVIF file's `ftyp` and `meta` boxes and its primary image's Exif and XMP items.
    private static func heifMetadata(_ file: PositionalFile, source: String) -> HEIFMetadata? {
        var ftyp: [UInt8]?
        var meta: [UInt8]?
        var offset = 0
        var walked = 0
        // Every top-level header is read (there are a handful), so a second `meta` box is
        // noticed: the whole file's parse refuses that, and so does this one.
        while offset + 8 <= file.size && walked < mostParts {
            walked += 1
            guard let header = file.read(min(16, file.size - offset), at: offset) else { return nil }
            let size32 = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: header[4..<8], as: UTF8.self)
            let size: Int
            switch size32 {
            case 0: size = file.size - offset
            case 1:
                guard header.count >= 16 else { return nil }
                let large = header[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard large <= UInt64(file.size - offset) else { return nil }
                size = Int(large)
            default: size = size32
            }
            guard size >= 8, size <= file.size - offset else { return nil }
            if offset == 0 && type != "ftyp" { return nil }
            if type == "ftyp" || type == "meta" {
                guard (type == "ftyp" ? ftyp : meta) == nil, let box = file.read(size, at: offset) else { return nil }
                if type == "ftyp" { ftyp = box } else { meta = box }
            }
            offset += size
        }
        guard let ftyp, let meta, let heif = try? HEIFFile(ftyp + meta, source: source) else { return nil }
        func item(_ kind: HEIFFile.MetadataKind) -> [UInt8]?? {
            let ids = heif.metadataItemIDs(kind)
            guard ids.count <= 1 else { return nil }
            guard let id = ids.first else { return .some(nil) }
            guard let entry = heif.locations.entries.first(where: { $0.itemID == id }),
                  let ranges = (try? heif.ranges(of: entry, fileSize: file.size)) ?? nil else { return nil }
            var data: [UInt8] = []
            for range in ranges {
                if entry.constructionMethod == 1 {
                    data += heif.bytes[range]
                } else {
                    guard let part = file.read(range.count, at: range.lowerBound) else { return nil }
                    data += part
                }
            }
            return .some(data)
        }
        guard let exifItem = item(.exif), let xmp = item(.xmp) else { return nil }
        var tiff: [UInt8]?
        if let exifItem {
            guard let split = HEIFFile.splitEXIFItem(exifItem) else { return nil }
            tiff = split.tiff
        }
        return HEIFMetadata(file: heif, exifTIFF: tiff, xmp: xmp)
    }
}
