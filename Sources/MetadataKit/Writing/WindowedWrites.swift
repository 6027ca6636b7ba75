import Foundation
internal import MemoraSystem

/// Writes into large files through windows, so that memory does not grow with the file: a JPEG's
/// coded image and a TIFF's strips and tiles are copied from the original in pieces, never held.
extension CaptionWriter {
    /// ``perform(_:on:options:buffers:)`` for a large JPEG, through a window (``JPEGWindow``): the header and
    /// the end of the file are edited and verified in memory, the coded image between is copied in pieces.
    /// Nil when the window cannot be used (an AFCP trailer, whose offsets are absolute): the caller reads the whole file.
    static func performWindowed(_ operation: MetadataOperation, window: JPEGWindow, options: CaptionWriteOptions,
                                buffers: FileAccess.Buffers?) throws(MetadataError) -> MetadataSnapshot? {
        let path = window.path
        let proxy = window.proxy
        let original = try JPEGFile(proxy, source: path)
        guard original.afcp == nil, original.afcpProblem == nil else { return nil }
        try FileAccess.requireWritable(path)
        guard let (updated, result) = try edit(operation, proxy, source: path) else {
            return .unchanged(path)
        }
        // The SOS segment and the coded image after it are the editors' untouched tail: the new header
        // ends where the same SOS segment ends, and what follows it is the old tail's bytes.
        let sos = Array(window.head[window.scanStart...])
        guard let headEnd = JPEGWindow.scanHeaderEnd(of: updated), headEnd >= sos.count,
              updated[(headEnd - sos.count)..<headEnd].elementsEqual(sos),
              updated[headEnd...].starts(with: window.tail.prefix(4096)) else {
            throw .verificationFailed(source: path, differences: ["the coded image (the edit moved it)"])
        }
        let gap = window.head.count - window.scanStart
        var saved = result
        try window.replace(
            newHead: updated[..<headEnd], newTail: updated[headEnd...], crc: original.imageDataCRC(tailPrefix: gap),
            keepModificationTime: options.keepModificationTime, buffers: buffers, progress: options.progress
        ) { middleCRC throws(MetadataError) in
            saved.imageDigest = Data(JPEGFile.digestBytes(CRC32.checksum(original.tail.dropFirst(gap), initial: middleCRC)))
            try options.willReplace(saved, path: path)
        }
        return saved
    }

    /// ``perform(_:on:options:buffers:)`` for a TIFF or DNG through a window (``TIFFWindow``): the IFDs and
    /// metadata values are edited and verified in sparse memory, the image data is copied from the original
    /// with the edited ranges laid over it. Nil when the edit would reach into image data that was not read
    /// (an IFD inside a strip): the caller reads the whole file.
    static func performWindowed(_ operation: MetadataOperation, tiff window: TIFFWindow, options: CaptionWriteOptions,
                                buffers: FileAccess.Buffers?) throws(MetadataError) -> MetadataSnapshot? {
        let path = window.path
        let memory = window.memory
        try FileAccess.requireWritable(path)
        let beforeTags = try tagsBeforeEdit(source: path) { () throws(MetadataError) in
            try Exiv2.readTags(memory: UnsafeRawBufferPointer(memory.bytes), source: path).tags
        }
        guard let operation = planned(operation, before: beforeTags, jpeg: nil, source: path) else { return .unchanged(path) }
        let tiff = try TIFFCaptionEditor.edited(TIFFBlock(PatchedBytes(.memory(memory)), source: path), operation: operation, source: path,
                                                oldCaptions: captions(in: beforeTags))
        guard !tiff.touched.contains(where: window.touchesHole) else { return nil }
        let edited = tiff.storage
        let baseLength = edited.baseLength
        // Only the touched ranges differ from the original (checked by the editor) within what is kept of it.
        let changed = Self.mergedRanges(tiff.touched.map { $0.clamped(to: 0..<baseLength) })

        // The new file as libexiv2 reads it: what was read, the edited ranges, the appended bytes.
        guard let updated = try? SparseMemory(count: edited.count) else { return nil }
        let after: [MetadataTag]
        do {
            for range in window.readRanges(upTo: baseLength) {
                UnsafeMutableRawBufferPointer(rebasing: updated.bytes[range]).copyMemory(from: UnsafeRawBufferPointer(rebasing: memory.bytes[range]))
            }
            for range in changed + [baseLength..<edited.count] {
                edited[range].withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: updated.bytes[range]).copyMemory(from: $0) }
            }
            after = try Exiv2.readTags(memory: UnsafeRawBufferPointer(updated.bytes), source: path).tags
        } catch {
            throw .verificationFailed(source: path, differences: ["the result is not readable (\(error))"])
        }
        let differences = tagDifferences(before: beforeTags, after: after, container: .tiff, operation: operation)
        guard differences.isEmpty else { throw .verificationFailed(source: path, differences: differences) }

        var snapshot = MetadataSnapshot(path: path, kept: .patches(.init(originalLength: memory.count, overwritten: tiff.touched, original: edited.original)),
                                        imageDigest: Data())
        try StreamedReplacement.replace(
            path, identity: window.identity, size: Int64(edited.count), keepModificationTime: options.keepModificationTime, buffers: buffers,
            progress: options.progress, isUnchanged: { source throws(SystemError) in
                for range in window.readRanges(upTo: memory.count) where try !source.read(range.count, at: Int64(range.lowerBound))
                    .elementsEqual(UnsafeRawBufferPointer(rebasing: memory.bytes[range])) {
                    return false
                }
                return true
            }
        ) { replacement throws(MetadataError) in
            var crc = try replacement.copy(0..<Int64(baseLength), crc: 0) { offset, piece in
                let pieceRange = Int(offset)..<(Int(offset) + piece.count)
                for range in changed where range.overlaps(pieceRange) {
                    let overlap = range.clamped(to: pieceRange)
                    edited[overlap].withUnsafeBytes {
                        UnsafeMutableRawBufferPointer(rebasing: piece[(overlap.lowerBound - pieceRange.lowerBound)..<(overlap.upperBound - pieceRange.lowerBound)])
                            .copyMemory(from: $0)
                    }
                }
            }
            try replacement.write(edited.appended)
            crc = edited.appended.withUnsafeBytes { LibDeflate.crc32($0, initial: crc) }
            snapshot.imageDigest = Data(JPEGFile.digestBytes(crc))
            try options.willReplace(snapshot, path: path)
        }
        return snapshot
    }
}
