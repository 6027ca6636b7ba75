@testable import MetadataKit
import Testing

/// Lowercase hex of `bytes`, for comparing digests with published values.
private func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
}

/// One megabyte of a fixed, non-repeating-per-block pattern: byte i is (31 i + 7) mod 256.
private let megabyte: [UInt8] = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

/// CRC-32 against the standard check value and a real PNG chunk.
struct CRC32Tests {
    /// The CRC-32 check value, and the CRC every PNG IEND chunk carries.
    @Test func knownValues() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum(Array("IEND".utf8)) == 0xAE42_6082)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    /// Chaining through `initial`, and the non-contiguous path.
    @Test func chainingAndGenericPath() {
        let first = CRC32.checksum(Array("1234".utf8))
        #expect(CRC32.checksum(Array("56789".utf8), initial: first) == 0xCBF4_3926)
        #expect(CRC32.checksum("123456789".utf8.lazy.map { $0 }) == 0xCBF4_3926)
        #expect(CRC32.checksum(megabyte) == 0xD424_BDC1)  // zlib.crc32
    }
}

/// Windows-1252, IPTC text heuristics, UTF-8 validation and UCS-2LE.
struct TextEncodingTests {
    /// Strings with their Windows-1252 bytes (from Python's cp1252 codec), both directions.
    @Test(arguments: [
        ("Café €5 – “quoted”", [
            0x43, 0x61, 0x66, 0xE9, 0x20, 0x80, 0x35, 0x20, 0x96, 0x20, 0x93,
            0x71, 0x75, 0x6F, 0x74, 0x65, 0x64, 0x94,
        ] as [UInt8]),
        ("Œuvre ‰ ™ Ÿ ž š ƒ … † ‡ ˆ ‹ › • — ˜ ‚ „ Ž", [
            0x8C, 0x75, 0x76, 0x72, 0x65, 0x20, 0x89, 0x20, 0x99, 0x20, 0x9F, 0x20, 0x9E, 0x20,
            0x9A, 0x20, 0x83, 0x20, 0x85, 0x20, 0x86, 0x20, 0x87, 0x20, 0x88, 0x20, 0x8B, 0x20,
            0x9B, 0x20, 0x95, 0x20, 0x97, 0x20, 0x98, 0x20, 0x82, 0x20, 0x84, 0x20, 0x8E,
        ]),
        ("naïve façade ½ ÿ", [
            0x6E, 0x61, 0xEF, 0x76, 0x65, 0x20, 0x66, 0x61, 0xE7, 0x61, 0x64, 0x65, 0x20, 0xBD, 0x20, 0xFF,
        ]),
        ("", []),
    ])
    func windows1252RoundTrip(text: String, bytes: [UInt8]) {
        #expect(TextEncodings.windows1252Encode(text) == bytes)
        #expect(TextEncodings.windows1252Decode(bytes) == text)
    }

    /// Every byte decodes to one scalar and encodes back to itself.
    @Test func windows1252AllBytes() {
        let all = (0...255).map { UInt8($0) }
        let text = TextEncodings.windows1252Decode(all)
        #expect(text.unicodeScalars.count == 256)
        #expect(TextEncodings.windows1252Encode(text) == all)
    }

    /// The five undefined bytes become their C1 controls (as WHATWG), and back.
    @Test func windows1252UndefinedBytes() {
        let undefined: [UInt8] = [0x81, 0x8D, 0x8F, 0x90, 0x9D]
        let text = TextEncodings.windows1252Decode(undefined)
        #expect(text.unicodeScalars.map(\.value) == [0x81, 0x8D, 0x8F, 0x90, 0x9D])
        #expect(TextEncodings.windows1252Encode(text) == undefined)
    }

    /// Characters outside the code page give nil; decomposed accents are composed first.
    @Test func windows1252Unrepresentable() {
        #expect(TextEncodings.windows1252Encode("日本") == nil)
        #expect(TextEncodings.windows1252Encode("smile 😀") == nil)
        #expect(TextEncodings.windows1252Encode("\u{80}") == nil)  // a C1 control that 0x80 does not mean
        #expect(TextEncodings.windows1252Encode("Cafe\u{301}") == [0x43, 0x61, 0x66, 0xE9])
    }

    /// Undeclared IPTC text: valid UTF-8 stays UTF-8, anything else is Windows-1252.
    @Test func iptcUndeclared() {
        let utf8: [UInt8] = [0x43, 0x61, 0x66, 0xC3, 0xA9, 0x20, 0xE2, 0x82, 0xAC]
        #expect(TextEncodings.decodeIPTCText(utf8, declaredUTF8: false) == "Café €")
        #expect(TextEncodings.decodeIPTCText([0x43, 0x61, 0x66, 0xE9], declaredUTF8: false) == "Café")
        #expect(TextEncodings.decodeIPTCText([0x80, 0x35], declaredUTF8: false) == "€5")
        #expect(TextEncodings.decodeIPTCText(Array("plain".utf8), declaredUTF8: false) == "plain")
    }

    /// Declared UTF-8 is decoded as UTF-8 even when invalid, with U+FFFD replacements.
    @Test func iptcDeclaredUTF8() {
        let utf8: [UInt8] = [0x43, 0x61, 0x66, 0xC3, 0xA9]
        #expect(TextEncodings.decodeIPTCText(utf8, declaredUTF8: true) == "Café")
        #expect(TextEncodings.decodeIPTCText([0x43, 0x61, 0x66, 0xE9], declaredUTF8: true) == "Caf\u{FFFD}")
        #expect(TextEncodings.decodeIPTCText([0x41, 0xFF, 0x42], declaredUTF8: true) == "A\u{FFFD}B")
    }

    /// Well-formed UTF-8 only: overlongs, surrogates, values past U+10FFFF and
    /// truncated sequences are all rejected.
    @Test func utf8Validation() {
        let valid: [[UInt8]] = [
            [], Array("ascii".utf8), [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80],
            [0xEF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF],
        ]
        let invalid: [[UInt8]] = [
            [0x80], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80],
            [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
            [0xE2, 0x82], [0xC3], [0xC3, 0x41], [0xE2, 0x82, 0x41], [0xFF],
        ]
        for bytes in valid { #expect(TextEncodings.isValidUTF8(bytes), "\(bytes)") }
        for bytes in invalid { #expect(!TextEncodings.isValidUTF8(bytes), "\(bytes)") }
    }

    /// UTF-16LE with a surrogate pair, terminated by 0x00 0x00, and back.
    @Test func ucs2RoundTrip() {
        let bytes = TextEncodings.encodeUCS2LE("Hi 😀!")
        #expect(bytes == [0x48, 0x00, 0x69, 0x00, 0x20, 0x00, 0x3D, 0xD8, 0x00, 0xDE, 0x21, 0x00, 0x00, 0x00])
        #expect(TextEncodings.decodeUCS2LE(bytes) == "Hi 😀!")
        #expect(TextEncodings.encodeUCS2LE("") == [0x00, 0x00])
        #expect(TextEncodings.decodeUCS2LE([UInt8]()) == "")
    }

    /// Decoding stops at the first U+0000, ignores a trailing odd byte, and
    /// replaces an unpaired surrogate with U+FFFD.
    @Test func ucs2Terminator() {
        #expect(TextEncodings.decodeUCS2LE([0x41, 0x00, 0x00, 0x00, 0x42, 0x00]) == "A")
        #expect(TextEncodings.decodeUCS2LE([0x41, 0x00, 0x42]) == "A")
        #expect(TextEncodings.decodeUCS2LE([0x41, 0x00, 0x42, 0x00]) == "AB")  // no terminator
        #expect(TextEncodings.decodeUCS2LE([0x00, 0x41, 0x41, 0x00]) == "\u{4100}A")  // 0x4100 is not U+0000
        #expect(TextEncodings.decodeUCS2LE([0x3D, 0xD8, 0x41, 0x00]) == "\u{FFFD}A")
    }
}
