import Foundation
internal import MemoraSystem

/// A large JPEG edited through a window, so that memory does not grow with the file: its header
/// (every segment through the first SOS) and its last ``tailLength`` bytes (the end of the coded
/// image, and any trailer) are read; the bytes between are never held in memory. The editors see
/// `head + tail` as a JPEG (they never look inside the coded image); the new file is the new
/// header, then the bytes between copied from the original in pieces, then the new tail.
struct JPEGWindow {
    /// JPEGs at least this large are written through a window.
    static let minimumSize: Int64 = 64 << 20
    /// How much of the end of the file is read (the end of the coded image and any trailer: a FotoStation
    /// trailer holds a few KB). The editors and the verification copy it a few times: with 16 MiB a 1 GiB
    /// write peaked 71 MiB above a 1 MB one, with 4 MiB far less (`memora-bench` scenario 13).
    static let tailLength = 4 << 20

    let path: String
    /// The header: every segment before the first scan, and the SOS segment itself.
    let head: [UInt8]
    /// Where the SOS marker is in `head`.
    let scanStart: Int
    /// The file's last bytes.
    let tail: [UInt8]
    /// The bytes between `head` and `tail`, in the file.
    let middle: Range<Int64>
    /// The version of the file read.
    let identity: FileStatus.Identity

    /// The window of the JPEG at `path`, or nil when it is smaller than ``minimumSize``, not a JPEG,
    /// or its header cannot be followed (the whole-file path then reports the problem).
    static func open(_ path: String, minimumSize: Int64 = minimumSize, tailLength: Int = tailLength) throws(MetadataError) -> JPEGWindow? {
        do {
            let file = try SystemFile(path)
            let status = try file.status()
            guard status.size >= minimumSize else { return nil }
            var head = try file.read(64 << 10, at: 0)
            guard head.starts(with: [0xFF, 0xD8, 0xFF]) else { return nil }
            var offset = 2
            while true {
                if head.count < offset + 4 { head += try file.read(max(64 << 10, offset + 4 - head.count), at: Int64(head.count)) }
                guard head.count >= offset + 4, head[offset] == 0xFF else { return nil }
                let marker = head[offset + 1]
                if marker == 0xFF { offset += 1; continue }
                guard marker != 0xD9, marker != 0x01, !(0xD0...0xD7).contains(marker) else { return nil }
                let length = Int(head[offset + 2]) << 8 | Int(head[offset + 3])
                guard length >= 2 else { return nil }
                let end = offset + 2 + length
                if head.count < end { head += try file.read(end - head.count, at: Int64(head.count)) }
                guard head.count >= end else { return nil }
                if marker == 0xDA {
                    let tailStart = max(Int64(end), status.size - Int64(tailLength))
                    guard tailStart > Int64(end) else { return nil }
                    let tail = try file.readExactly(Int(status.size - tailStart), at: tailStart)
                    return JPEGWindow(path: path, head: Array(head[..<end]), scanStart: offset, tail: tail,
                                      middle: Int64(end)..<tailStart, identity: status.identity)
                }
                offset = end
                guard offset < 16 << 20 else { return nil }  // a header this large is not a photo's
            }
        } catch {
            throw .system(error, path: path, reason: error.reason)
        }
    }

    /// What the editors see: the header and the tail, as one JPEG.
    var proxy: [UInt8] { head + tail }

    /// Where the SOS segment of `bytes` (an edited proxy) ends, or nil.
    static func scanHeaderEnd(of bytes: [UInt8]) -> Int? {
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2 else { return nil }
            if marker == 0xDA { return offset + 2 + length }
            offset += 2 + length
        }
        return nil
    }

    /// Writes `newHead`, the original's middle and `newTail` to the file atomically, as
    /// ``FileAccess/replace(_:with:expected:identity:keepModificationTime:buffers:)`` does, and
    /// calls `beforeCommit` with the CRC-32 of the middle continued from `crc` once it is copied
    /// and before the original is replaced (a snapshot that needs the image digest is saved there).
    func replace(newHead: ArraySlice<UInt8>, newTail: ArraySlice<UInt8>, crc: UInt32, keepModificationTime: Bool,
                 buffers: FileAccess.Buffers?, progress: FileProgress? = nil,
                 beforeCommit: (UInt32) throws(MetadataError) -> Void) throws(MetadataError) {
        // Still the version read: its identity, and its header and tail byte for byte when recently modified.
        let size = Int64(newHead.count) + Int64(middle.count) + Int64(newTail.count)
        try StreamedReplacement.replace(
            path, identity: identity, size: size, keepModificationTime: keepModificationTime, buffers: buffers, progress: progress,
            isUnchanged: { source throws(SystemError) in
                let start = try source.read(head.count, at: 0), end = try source.read(tail.count, at: middle.upperBound)
                return start == head && end == tail
            }
        ) { replacement throws(MetadataError) in
            try replacement.write(newHead)
            let middleCRC = try replacement.copy(middle, crc: crc)
            try replacement.write(newTail)
            try beforeCommit(middleCRC)
        }
    }
}
