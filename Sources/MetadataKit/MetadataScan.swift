import Foundation

extension MetadataReader {
    /// The same reading as ``read(contentsOf:)`` for indexing many files, from as little of each
    /// file as possible: of a JPEG only the segments before the image data are read from disk.
    /// The EXIF fields come from libexif (several times faster than libexiv2 on camera EXIF,
    /// whose MakerNotes libexiv2 decodes in full); XMP and IPTC from libexiv2 as in `read`.
    /// Formats other than JPEG and HEIF are read whole, exactly as `read` does.
    public static func scan(contentsOf path: String) throws(MetadataError) -> PhotoMetadata {
        if let header = FileAccess.readJPEGHeader(path) {
            return try scan(header, source: path)
        }
        return try scan(FileAccess.read(path), source: path)
    }

    /// ``scan(contentsOf:)`` for a file held in memory (a JPEG may be cut after its header).
    public static func scan(_ bytes: [UInt8], source: String = "image") throws(MetadataError) -> PhotoMetadata {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]), let jpeg = try? JPEGFile(bytes, source: source) {
            // libexiv2 gets the XMP and Photoshop segments alone, in a minimal JPEG; libexif the EXIF.
            var minimal: [UInt8] = [0xFF, 0xD8]
            for segment in jpeg.segments where JPEGFile.isMetadata(segment) && !segment.payload.starts(with: JPEGFile.exifSignature) {
                minimal += segment.bytes
            }
            minimal += [0xFF, 0xD9]
            let others = try Exiv2.readTags(bytes: minimal, source: source).tags
            let exif = jpeg.exifTIFF.map { LibExif.interpretedTags(inEXIF: JPEGFile.exifSignature + $0) } ?? []
            return interpret(exif + others, mimeType: "image/jpeg", iptcDigestMatches: iptcDigestMatches(jpeg, source: source))
        }
        if HEIFFile.looksLikeBMFF(bytes), let heif = try? HEIFFile(bytes, source: source),
           let (tiff, xmp) = try? (heif.exifTIFF(), heif.metadataItem(.xmp)?.data),
           let others = try? Exiv2.readTags(tiff: nil, xmp: xmp, mimeType: heif.mimeType, source: source) {
            let exif = tiff.map { LibExif.interpretedTags(inEXIF: JPEGFile.exifSignature + $0) } ?? []
            return interpret(exif + others.tags, mimeType: heif.mimeType, iptcDigestMatches: nil)
        }
        return try read(bytes, source: source)
    }
}

extension FileAccess {
    /// A JPEG's bytes up to its first scan (the segments that hold metadata) and that scan's
    /// marker, read in 64 KB steps; nil when the file is not a JPEG or its header does not
    /// parse (the caller then reads the whole file).
    static func readJPEGHeader(_ path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }  // `read` reports why
        defer { try? handle.close() }
        var bytes: [UInt8] = []
        func need(_ count: Int) -> Bool {
            while bytes.count < count {
                guard let more = try? handle.read(upToCount: 64 << 10), !more.isEmpty else { return false }
                bytes += more
            }
            return true
        }
        guard need(4), bytes.starts(with: [0xFF, 0xD8, 0xFF]) else { return nil }
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
}
