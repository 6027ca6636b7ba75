/// Finds the EXIF orientation tag (0x0112) in a JPEG's APP1 segment, a PNG's `eXIf`
/// chunk, a WebP's `EXIF` chunk or a TIFF's first directory, without decoding anything else.
///
/// ImageKit needs only this one tag to show photos upright; full metadata
/// reading belongs to MetadataKit. Malformed EXIF yields nil, never an error.
enum EXIFOrientationReader {
    /// The orientation stored in the file, or nil when there is none (or it is unreadable).
    static func orientation(in bytes: UnsafeRawBufferPointer, format: ImageFormat) -> ImageOrientation? {
        switch format {
        case .jpeg: jpegTIFFBlock(bytes).flatMap(orientation(inTIFF:))
        case .png: pngTIFFBlock(bytes).flatMap(orientation(inTIFF:))
        case .webp: webpTIFFBlock(bytes).flatMap(orientation(inTIFF:))
        case .tiff: orientation(inTIFF: bytes)  // the file is the TIFF structure
        default: nil
        }
    }

    /// The TIFF structure inside the first `Exif\0\0` APP1 segment.
    private static func jpegTIFFBlock(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            if marker == 0xFF { offset += 1; continue }
            if marker == 0xDA || marker == 0xD9 { return nil }  // image data starts: no EXIF before it
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else { return nil }
            let body = offset + 4
            if marker == 0xE1, length >= 8,
               Array(bytes[body..<body + 6]) == [0x45, 0x78, 0x69, 0x66, 0x00, 0x00] {
                return UnsafeRawBufferPointer(rebasing: bytes[(body + 6)..<(offset + 2 + length)])
            }
            offset += 2 + length
        }
        return nil
    }

    /// The TIFF structure in the `eXIf` chunk of a PNG.
    private static func pngTIFFBlock(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(readUInt32(bytes, offset, bigEndian: true))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard length >= 0, offset + 12 + length <= bytes.count else { return nil }
            if type == "eXIf" {
                return UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<(offset + 8 + length)])
            }
            if type == "IDAT" || type == "IEND" { return nil }
            offset += 12 + length
        }
        return nil
    }

    /// The TIFF structure in the `EXIF` chunk of a WebP (with or without an `Exif\0\0` prefix).
    private static func webpTIFFBlock(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var offset = 12
        while offset + 8 <= bytes.count {
            let length = Int(readUInt32(bytes, offset + 4, bigEndian: false))
            guard offset + 8 + length <= bytes.count else { return nil }
            if Array(bytes[offset..<(offset + 4)]) == Array("EXIF".utf8) {
                var start = offset + 8
                if length >= 6, Array(bytes[start..<(start + 6)]) == [0x45, 0x78, 0x69, 0x66, 0x00, 0x00] { start += 6 }
                return UnsafeRawBufferPointer(rebasing: bytes[start..<(offset + 8 + length)])
            }
            offset += 8 + length + (length & 1)
        }
        return nil
    }

    /// Reads tag 0x0112 from IFD0 of a TIFF structure.
    private static func orientation(inTIFF tiff: UnsafeRawBufferPointer) -> ImageOrientation? {
        guard tiff.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        switch readUInt16(tiff, 2, bigEndian: bigEndian) {
        case 42: break
        case 43: return orientation(inBigTIFF: tiff, bigEndian: bigEndian)
        default: return nil
        }
        let ifd = Int(readUInt32(tiff, 4, bigEndian: bigEndian))
        guard ifd >= 8, ifd + 2 <= tiff.count else { return nil }
        let count = Int(readUInt16(tiff, ifd, bigEndian: bigEndian))
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard entry + 12 <= tiff.count else { return nil }
            guard readUInt16(tiff, entry, bigEndian: bigEndian) == 0x0112 else { continue }
            let type = readUInt16(tiff, entry + 2, bigEndian: bigEndian)
            guard type == 3 else { return nil }  // SHORT
            let value = Int(readUInt16(tiff, entry + 8, bigEndian: bigEndian))
            return ImageOrientation(rawValue: value)
        }
        return nil
    }

    /// Reads tag 0x0112 from the first directory of a BigTIFF file (64-bit offsets and counts,
    /// 20-byte entries).
    private static func orientation(inBigTIFF tiff: UnsafeRawBufferPointer, bigEndian: Bool) -> ImageOrientation? {
        guard tiff.count >= 16, readUInt16(tiff, 4, bigEndian: bigEndian) == 8 else { return nil }
        let ifd = readUInt64(tiff, 8, bigEndian: bigEndian)
        guard ifd >= 16, ifd <= UInt64(tiff.count - 8) else { return nil }
        let start = Int(ifd)
        let count = readUInt64(tiff, start, bigEndian: bigEndian)
        for index in 0..<min(count, UInt64(tiff.count / 20)) {
            let entry = start + 8 + Int(index) * 20
            guard entry + 20 <= tiff.count else { return nil }
            guard readUInt16(tiff, entry, bigEndian: bigEndian) == 0x0112 else { continue }
            guard readUInt16(tiff, entry + 2, bigEndian: bigEndian) == 3 else { return nil }  // SHORT
            return ImageOrientation(rawValue: Int(readUInt16(tiff, entry + 12, bigEndian: bigEndian)))
        }
        return nil
    }

    private static func readUInt64(_ bytes: UnsafeRawBufferPointer, _ offset: Int, bigEndian: Bool) -> UInt64 {
        let a = UInt64(readUInt32(bytes, offset, bigEndian: bigEndian))
        let b = UInt64(readUInt32(bytes, offset + 4, bigEndian: bigEndian))
        return bigEndian ? a << 32 | b : b << 32 | a
    }

    private static func readUInt16(_ bytes: UnsafeRawBufferPointer, _ offset: Int, bigEndian: Bool) -> UInt16 {
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    private static func readUInt32(_ bytes: UnsafeRawBufferPointer, _ offset: Int, bigEndian: Bool) -> UInt32 {
        let a = UInt32(readUInt16(bytes, offset, bigEndian: bigEndian))
        let b = UInt32(readUInt16(bytes, offset + 2, bigEndian: bigEndian))
        return bigEndian ? a << 16 | b : b << 16 | a
    }
}
