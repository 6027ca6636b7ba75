import Foundation

extension MetadataReader {
    /// The same reading as ``read(contentsOf:)`` for indexing many files, from as little of each
    /// file as possible (`SparseMetadataRead`): of a JPEG only the segments before the image
    /// data are read from disk, of a PNG or WebP every chunk but the image data, of a HEIF or AVIF
    /// its `ftyp` and `meta` boxes and its Exif and XMP items, of a TIFF or DNG everything but its
    /// strips and tiles (`TIFFWindow`). Files whose structure does not allow it are read whole.
    /// The EXIF fields come from libexif (several times faster than libexiv2 on camera EXIF, whose MakerNotes libexiv2 decodes in full);
    /// XMP and IPTC from libexiv2 as in `read`.
    public static func scan(contentsOf path: String) throws(MetadataError) -> PhotoMetadata {
        switch SparseMetadataRead.parts(of: path) {
        case .file(let bytes):
            if let reading = try? scan(bytes, source: path) { return reading }
        case .heif(let metadata):
            if let reading = try? scanHEIF(metadata.file, tiff: metadata.exifTIFF, xmp: metadata.xmp, source: path) { return reading }
        case nil:
            if let reading = readThroughWindow(path) { return reading }
        }
        return try scan(FileAccess.read(path), source: path)
    }

    /// ``scan(contentsOf:)`` for a file held in memory (a JPEG may be cut after its header).
    public static func scan(_ bytes: [UInt8], source: String = "image") throws(MetadataError) -> PhotoMetadata {
        let container = MetadataContainer(bytes)
        if container == .jpeg, let jpeg = try? JPEGFile(bytes, source: source) {
            // libexiv2 gets the XMP and Photoshop segments alone, in a minimal JPEG; libexif the EXIF.
            var minimal: [UInt8] = [0xFF, 0xD8]
            for segment in jpeg.segments where JPEGFile.isMetadata(segment) && !segment.payload.starts(with: JPEGFile.exifSignature) {
                minimal += segment.bytes
            }
            minimal += [0xFF, 0xD9]
            let others = try Exiv2.readTags(bytes: minimal, source: source).tags
            let exif = jpeg.exifTIFF.map { LibExif.interpretedTags(inEXIF: JPEGFile.exifSignature + $0) } ?? []
            return interpret(exif + others, mimeType: "image/jpeg", iptcDigestMatches: iptcDigestMatches(jpeg, source: source),
                             pixelSize: ContainerPixelSize.jpeg(jpeg))
        }
        if container == .heif, let heif = try? HEIFFile(bytes, source: source),
           let (tiff, xmp) = try? (heif.exifTIFF(), heif.metadataItem(.xmp)?.data),
           let reading = try? scanHEIF(heif, tiff: tiff, xmp: xmp, source: source) {
            return reading
        }
        return try read(bytes, source: source)
    }

    /// A HEIF/AVIF file's reading from its EXIF TIFF block (through libexif) and XMP packet.
    static func scanHEIF(_ heif: HEIFFile, tiff: [UInt8]?, xmp: [UInt8]?, source: String) throws(MetadataError) -> PhotoMetadata {
        let others = try Exiv2.readTags(tiff: nil, xmp: xmp, mimeType: heif.mimeType, source: source)
        let exif = tiff.map { LibExif.interpretedTags(inEXIF: JPEGFile.exifSignature + $0) } ?? []
        return interpret(exif + others.tags, mimeType: heif.mimeType, iptcDigestMatches: nil, pixelSize: heif.primaryImageSize)
    }
}
