// The one file that imports CZlib: zlib's inflate and deflate become Swift functions here.
internal import CZlib

/// zlib: compression and decompression, for compressed PNG text chunks (zTXt, compressed iTXt).
enum Zlib {
    /// Inflates a zlib stream. Output beyond `limit` bytes is refused (a small chunk can
    /// inflate to gigabytes), as is a damaged or truncated stream.
    static func inflate(_ compressed: ArraySlice<UInt8>, limit: Int = 16 << 20, source: String) throws(MetadataError) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .unreadable(source: source, reason: "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var status = Z_OK
        compressed.withUnsafeBufferPointer { source in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = UInt32(source.count)
            repeat {
                buffer.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = UInt32(target.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    output.append(contentsOf: target[0..<(target.count - Int(stream.avail_out))])
                }
            } while status == Z_OK && output.count <= limit && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        guard output.count <= limit else {
            throw .tooLarge(source: source, reason: "a compressed text chunk inflates to more than \(limit >> 20) MB")
        }
        guard status == Z_STREAM_END else {
            throw .corrupt(source: source, reason: "a compressed text chunk is damaged (zlib status \(status))")
        }
        return output
    }

    /// Compresses `bytes` into a zlib stream (a compressed text chunk written back compressed);
    /// nil only when zlib cannot get memory.
    static func deflate(_ bytes: [UInt8]) -> [UInt8]? {
        var size = compressBound(UInt(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(size))
        let status = output.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { source in
                compress2(target.baseAddress, &size, source.baseAddress, UInt(source.count), Z_DEFAULT_COMPRESSION)
            }
        }
        guard status == Z_OK else { return nil }
        return Array(output.prefix(Int(size)))
    }
}
