import Foundation

/// Legacy text encodings met in image metadata: Windows-1252 (untagged IPTC-IIM
/// text written by older software) and UCS-2/UTF-16LE (the Windows `XP*` EXIF tags).
enum TextEncodings {
    // MARK: Windows-1252

    /// The scalars for bytes 0x80...0x9F (Unicode's cp1252 mapping). The five
    /// bytes it leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) map to the C1
    /// control with the same value, as the WHATWG Encoding Standard does; every
    /// other byte is Latin-1 (its value is its scalar).
    private static let windows1252High: [UInt16] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,  // 0x80
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,  // 0x88
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,  // 0x90
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,  // 0x98
    ]

    /// Decodes Windows-1252 text; every byte maps to exactly one scalar, so this never fails.
    static func windows1252Decode(_ bytes: some Collection<UInt8>) -> String {
        windows1252High.withUnsafeBufferPointer { high in
            var scalars = String.UnicodeScalarView()
            scalars.reserveCapacity(bytes.count)
            for byte in bytes {
                let value = byte & 0xE0 == 0x80 ? high[Int(byte & 0x1F)] : UInt16(byte)
                // Every table entry is a BMP non-surrogate, so the fallback is unreachable.
                scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            }
            return String(scalars)
        }
    }

    /// Encodes `text` as Windows-1252, or returns nil when some character has no
    /// byte. Text is tried as given, then in NFC, so decomposed accents (as in
    /// macOS file names) still encode. The five undefined bytes round-trip from
    /// their C1 controls (see `windows1252Decode`); other C1 controls do not encode.
    static func windows1252Encode(_ text: String) -> [UInt8]? {
        if let bytes = windows1252Encode(scalars: text.unicodeScalars) { return bytes }
        let composed = text.precomposedStringWithCanonicalMapping
        guard !composed.unicodeScalars.elementsEqual(text.unicodeScalars) else { return nil }
        return windows1252Encode(scalars: composed.unicodeScalars)
    }

    /// Encodes scalar by scalar, with no normalization.
    private static func windows1252Encode(scalars: String.UnicodeScalarView) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(scalars.count)
        for scalar in scalars {
            switch scalar.value {
            case 0x00...0x7F, 0xA0...0xFF:
                bytes.append(UInt8(scalar.value))
            default:
                guard scalar.value <= 0xFFFF,
                    let index = windows1252High.firstIndex(of: UInt16(scalar.value))
                else { return nil }
                bytes.append(0x80 | UInt8(index))
            }
        }
        return bytes
    }

    // MARK: IPTC-IIM text

    /// Decodes an IPTC-IIM text dataset.
    ///
    /// When the record declares UTF-8 (dataset 1:90 holds `ESC % G`), the bytes
    /// are decoded as UTF-8 with invalid sequences replaced by U+FFFD. Otherwise
    /// the charset is unknown: text that is valid UTF-8 is taken as UTF-8 (pure
    /// ASCII is both), and anything else is decoded as Windows-1252.
    static func decodeIPTCText(_ bytes: some Collection<UInt8>, declaredUTF8: Bool) -> String {
        if declaredUTF8 || isValidUTF8(bytes) {
            return String(decoding: bytes, as: UTF8.self)
        }
        return windows1252Decode(bytes)
    }

    /// Whether `bytes` is well-formed UTF-8 (Unicode table 3-7): no overlong
    /// forms, no surrogates, nothing above U+10FFFF, no truncated sequence.
    static func isValidUTF8(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        while let lead = iterator.next() {
            if lead < 0x80 { continue }
            let continuationCount: Int
            var secondRange: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: continuationCount = 1
            case 0xE0: continuationCount = 2; secondRange = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: continuationCount = 2
            case 0xED: continuationCount = 2; secondRange = 0x80...0x9F
            case 0xF0: continuationCount = 3; secondRange = 0x90...0xBF
            case 0xF1...0xF3: continuationCount = 3
            case 0xF4: continuationCount = 3; secondRange = 0x80...0x8F
            default: return false
            }
            for position in 0..<continuationCount {
                guard let byte = iterator.next() else { return false }
                let allowed = position == 0 ? secondRange : 0x80...0xBF
                guard allowed.contains(byte) else { return false }
            }
        }
        return true
    }

    // MARK: UCS-2 little-endian (Windows XP* EXIF tags)

    /// Decodes the little-endian UTF-16 text of the Windows `XP*` EXIF tags
    /// (XPTitle, XPComment, XPAuthor, XPKeywords, XPSubject). Decoding stops at
    /// the first U+0000, a trailing odd byte is ignored, and unpaired surrogates
    /// become U+FFFD.
    static func decodeUCS2LE(_ bytes: some Collection<UInt8>) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var iterator = bytes.makeIterator()
        while let low = iterator.next(), let high = iterator.next() {
            let unit = UInt16(high) << 8 | UInt16(low)
            if unit == 0 { break }
            units.append(unit)
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// Encodes `text` for a Windows `XP*` EXIF tag: UTF-16LE (characters beyond
    /// the BMP as surrogate pairs) followed by a 0x00 0x00 terminator.
    static func encodeUCS2LE(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf16.count * 2 + 2)
        for unit in text.utf16 {
            bytes.append(UInt8(truncatingIfNeeded: unit))
            bytes.append(UInt8(truncatingIfNeeded: unit >> 8))
        }
        bytes += [0, 0]
        return bytes
    }
}
