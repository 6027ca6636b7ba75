internal import MemoraSystem

/// Reads from an image file only what a task needs, so that memory does not grow with bytes the
/// task never looks at: a JPEG's header (up to its first scan) for ``ImageDecoder/info(contentsOf:)``,
/// and a JPEG's own stream (up to its EOI marker, without what follows: an MPF second image, a
/// maker's trailer, padding) for decoding. Other formats are read whole.
enum ImageFileReader {
    /// The bytes read, and the file's size.
    struct Read {
        var bytes: [UInt8]
        var fileSize: Int64
    }

    /// How much is read at a time while a JPEG's markers are walked.
    static let step = 1 << 20
    /// Files up to this size are read whole for decoding (one read, no walk: the common case, a camera photo);
    /// larger JPEGs are read up to their EOI marker.
    static let wholeFileLimit: Int64 = 32 << 20

    /// Enough of the file at `path` to read its format, size and orientation.
    static func header(_ path: String) throws(ImageError) -> Read {
        try read(path, stopAtFirstScan: true)
    }

    /// The bytes the decoders need to decode the image at `path`. For a file over ``wholeFileLimit``, the
    /// header is read first and `refusing` may turn it down (too many pixels) before the rest is read.
    static func image(_ path: String, wholeFileLimit: Int64 = wholeFileLimit,
                      refusing: (ImageInfo) -> ImageError? = { _ in nil }) throws(ImageError) -> Read {
        let size: Int64
        do { size = try FileSystem.status(of: path).size } catch {
            throw error.isNotFound ? .fileNotFound(path: path) : .unreadable(path: path, cause: error)
        }
        if size > wholeFileLimit {
            let header = try header(path)
            if let info = try? ImageDecoder.info(of: header.bytes, source: path), let refusal = refusing(info) { throw refusal }
        }
        return try read(path, stopAtFirstScan: false, wholeFileLimit: wholeFileLimit)
    }

    private static func read(_ path: String, stopAtFirstScan: Bool, wholeFileLimit: Int64 = wholeFileLimit) throws(ImageError) -> Read {
        do {
            let file = try SystemFile(path)
            let size = try file.size()
            let first = stopAtFirstScan ? 64 << 10 : (size <= wholeFileLimit ? Int(size) : step)
            var bytes = try file.read(Int(min(size, Int64(first))), at: 0)
            guard FileFormat.detect(bytes.prefix(FileFormat.headLength)) == .jpeg, stopAtFirstScan || size > wholeFileLimit else {
                if Int64(bytes.count) < size { bytes += try file.read(Int(size) - bytes.count, at: Int64(bytes.count)) }
                return Read(bytes: bytes, fileSize: size)
            }
            let end = try jpegEnd(file, size: size, bytes: &bytes, stopAtFirstScan: stopAtFirstScan)
            if end < bytes.count { bytes.removeSubrange(end...) }
            return Read(bytes: bytes, fileSize: size)
        } catch {
            throw error.isNotFound && error.operation == "open" ? .fileNotFound(path: path) : .unreadable(path: path, cause: error)
        }
    }

    /// Where the JPEG in `bytes` (read further from `file` as needed) ends: after its EOI marker, or
    /// (with `stopAtFirstScan`) after its first SOS segment. When its structure cannot be followed,
    /// the whole file is read and its size returned, so the decoder sees everything and reports the damage.
    private static func jpegEnd(_ file: SystemFile, size: Int64, bytes: inout [UInt8], stopAtFirstScan: Bool) throws(SystemError) -> Int {
        func have(_ count: Int) throws(SystemError) -> Bool {
            while bytes.count < count {
                guard Int64(bytes.count) < size else { return false }
                bytes += try file.read(Int(min(Int64(max(step, count - bytes.count)), size - Int64(bytes.count))), at: Int64(bytes.count))
            }
            return true
        }
        func whole() throws(SystemError) -> Int {
            _ = try have(Int(size))
            return bytes.count
        }
        var position = 2
        while true {
            guard try have(position + 2) else { return try whole() }
            guard bytes[position] == 0xFF else { return try whole() }
            let marker = bytes[position + 1]
            switch marker {
            case 0xFF:
                position += 1  // fill byte
                continue
            case 0xD9:
                return position + 2  // EOI
            case 0x01, 0xD0...0xD7:
                position += 2  // no length
                continue
            default:
                break
            }
            guard try have(position + 4) else { return try whole() }
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            guard length >= 2 else { return try whole() }
            position += 2 + length
            guard marker == 0xDA else { continue }
            guard try have(position) else { return try whole() }
            if stopAtFirstScan { return position }
            // Entropy-coded data: a 0xFF is followed by 0x00 (a stuffed byte), a restart marker or a
            // fill byte; anything else is the next marker.
            while true {
                guard try have(position + 2) else { return try whole() }
                guard let found = ByteSearch.firstIndex(of: 0xFF, in: bytes, from: position, to: bytes.count - 1) else {
                    position = bytes.count - 1  // the last byte may be 0xFF: look at it again with more bytes
                    continue
                }
                let next = bytes[found + 1]
                if next == 0x00 || (0xD0...0xD7).contains(next) { position = found + 2; continue }
                if next == 0xFF { position = found + 1; continue }
                position = found
                break
            }
        }
    }
}
