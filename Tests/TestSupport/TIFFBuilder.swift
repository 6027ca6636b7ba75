/// Builds TIFF structures (EXIF blocks, small TIFF files) byte by byte for fixtures.
public struct TIFFBuilder: Sendable {
    /// One IFD entry: tag, type, count and its value's bytes (in the builder's byte order).
    public struct Entry: Sendable {
        public var tag: UInt16
        public var type: UInt16
        public var count: UInt32
        public var data: [UInt8]

        /// An entry with raw value bytes.
        public init(tag: UInt16, type: UInt16, count: UInt32, data: [UInt8]) {
            self.tag = tag
            self.type = type
            self.count = count
            self.data = data
        }
    }

    /// The byte order of everything built.
    public var order: ByteOrder

    /// A builder for `order`.
    public init(_ order: ByteOrder = .little) { self.order = order }

    /// An ASCII entry (NUL-terminated).
    public func ascii(_ tag: UInt16, _ text: String) -> Entry {
        let bytes = Array(text.utf8) + [0]
        return Entry(tag: tag, type: 2, count: UInt32(bytes.count), data: bytes)
    }

    /// A SHORT entry.
    public func short(_ tag: UInt16, _ value: UInt16) -> Entry { Entry(tag: tag, type: 3, count: 1, data: order.bytes(value)) }

    /// A LONG entry.
    public func long(_ tag: UInt16, _ value: UInt32) -> Entry { Entry(tag: tag, type: 4, count: 1, data: order.bytes(value)) }

    /// A RATIONAL entry with one or more values.
    public func rationals(_ tag: UInt16, _ values: [(UInt32, UInt32)]) -> Entry {
        Entry(tag: tag, type: 5, count: UInt32(values.count), data: values.flatMap { order.bytes($0.0) + order.bytes($0.1) })
    }

    /// The 8-byte header with IFD0 at `ifd0Offset`.
    public func header(ifd0Offset: UInt32 = 8) -> [UInt8] {
        (order == .little ? [0x49, 0x49, 0x2A, 0x00] : [0x4D, 0x4D, 0x00, 0x2A]) + order.bytes(ifd0Offset)
    }

    /// One IFD placed at `offset`, entries sorted by tag; values longer than 4 bytes follow it
    /// (word-aligned), then nothing else. `next` is the next IFD's offset (0: none).
    public func ifd(_ entries: [Entry], at offset: Int, next: UInt32 = 0) -> [UInt8] {
        var table = order.bytes(UInt16(entries.count))
        var data: [UInt8] = []
        let dataStart = offset + 2 + entries.count * 12 + 4
        for entry in entries.sorted(by: { $0.tag < $1.tag }) {
            table += order.bytes(entry.tag) + order.bytes(entry.type) + order.bytes(entry.count)
            if entry.data.count <= 4 {
                table += entry.data + [UInt8](repeating: 0, count: 4 - entry.data.count)
            } else {
                table += order.bytes(UInt32(dataStart + data.count))
                data += entry.data
                if data.count % 2 == 1 { data.append(0) }
            }
        }
        return table + order.bytes(next) + data
    }

    /// A TIFF block with only IFD0.
    public func block(_ ifd0: [Entry]) -> [UInt8] { header() + ifd(ifd0, at: 8) }

    /// An EXIF block that carries what must never leave the device: camera make and model,
    /// the capture date (EXIF IFD) and a GPS position (GPS IFD).
    public func cameraBlock() -> [UInt8] {
        // Sizes are computed in two passes: IFD0 first with placeholder pointers.
        func ifd0(exifOffset: UInt32, gpsOffset: UInt32) -> [UInt8] {
            ifd([ascii(0x010F, "TESTCAM"), ascii(0x0110, "Model 7"), long(0x8769, exifOffset), long(0x8825, gpsOffset)], at: 8)
        }
        let exifOffset = 8 + ifd0(exifOffset: 0, gpsOffset: 0).count
        let exifIFD = ifd([ascii(0x9003, "2019:07:14 16:05:09")], at: exifOffset)
        let gpsOffset = exifOffset + exifIFD.count
        let gpsIFD = ifd([
            ascii(0x0001, "N"), rationals(0x0002, [(48, 1), (51, 1), (2964, 100)]),
            ascii(0x0003, "E"), rationals(0x0004, [(2, 1), (17, 1), (4020, 100)]),
        ], at: gpsOffset)
        return header() + ifd0(exifOffset: UInt32(exifOffset), gpsOffset: UInt32(gpsOffset)) + exifIFD + gpsIFD
    }
}

/// JPEG fixtures built from parts.
public enum JPEGBuilder {
    /// An APP1 EXIF segment (marker, length, `Exif\0\0`, the TIFF block).
    public static func exifSegment(_ tiff: [UInt8]) -> [UInt8] {
        segment(0xE1, Array("Exif".utf8) + [0, 0] + tiff)
    }

    /// A marker segment with its big-endian length.
    public static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(UInt16(payload.count + 2)) + payload
    }

    /// `jpeg` with `segment` inserted right after its SOI marker.
    public static func inserting(_ segment: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
    }
}
