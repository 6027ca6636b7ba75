import Foundation
import Testing
@testable import MemoraSystem

/// The one atomic write: its policies, and that a failed write leaves the original intact.
struct AtomicFileWriterTests {
    @Test func replaceKeepsPermissionsAndCanKeepTheModificationTime() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/photo.jpg"
        try AtomicFileWriter.write([1], to: path)
        try FileSystem.setPermissions(path, 0o640)
        let old = try SystemFile(path).status()
        try SystemFile(path, .readingAndWriting(createWith: nil)).setTimes(
            accessed: old.accessed, modified: FileStatus.Time(seconds: 1_000_000_000, nanoseconds: 5))
        try AtomicFileWriter.write([2, 3], to: path, options: .init(keepsModificationTime: true))
        let new = try FileSystem.status(of: path)
        #expect(new.permissions == 0o640)
        #expect(new.modified == FileStatus.Time(seconds: 1_000_000_000, nanoseconds: 5))
        #expect(new.inode != old.inode)
        #expect(try SystemFile(path).readAll() == [2, 3])
        // Nothing left beside it.
        #expect(try FileSystem.entries(of: folder.path).map(\.name) == ["photo.jpg"])
    }

    @Test func secretsAre0600AndANewFileIs0644() throws {
        let folder = try TemporaryFolder()
        try AtomicFileWriter.write([1], to: folder.path + "/key", options: .secret())
        try AtomicFileWriter.write([1], to: folder.path + "/plain")
        #expect(try FileSystem.status(of: folder.path + "/key").permissions == 0o600)
        #expect(try FileSystem.status(of: folder.path + "/plain").permissions == 0o644)
    }

    @Test func createOnlyRefusesAnExistingFile() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/a"
        try AtomicFileWriter.write([1, 2], to: path)
        let options = AtomicFileWriter.Options(replacesExisting: false)
        #expect { try AtomicFileWriter.write([9], to: path, options: options) } throws: { ($0 as? SystemError)?.code == SystemErrorCode.exists }
        #expect(try SystemFile(path).readAll() == [1, 2])
        try AtomicFileWriter.write([7], to: folder.path + "/b", options: options)
        #expect(try SystemFile(folder.path + "/b").readAll() == [7])
        #expect(try FileSystem.entries(of: folder.path).count == 2)
    }

    @Test func anAbandonedWriteLeavesTheOriginalAndNoTemporaryFile() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/photo.jpg"
        try AtomicFileWriter.write([1, 2, 3], to: path)
        do {
            let writer = try AtomicFileWriter(path: path, options: .secret())
            try writer.write([UInt8](repeating: 0xAB, count: 100_000))
            #expect(try FileSystem.entries(of: folder.path).count == 2)
        }
        #expect(try SystemFile(path).readAll() == [1, 2, 3])
        #expect(try FileSystem.entries(of: folder.path).map(\.name) == ["photo.jpg"])
    }

    @Test func aSymbolicLinkIsWrittenThrough() throws {
        let folder = try TemporaryFolder()
        let target = folder.path + "/target.jpg"
        try AtomicFileWriter.write([1], to: target)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link.jpg", withDestinationPath: target)
        try AtomicFileWriter.write([5, 6], to: folder.path + "/link.jpg")
        #expect(try FileSystem.status(of: folder.path + "/link.jpg", followingLinks: false).kind == .symbolicLink)
        #expect(try SystemFile(target).readAll() == [5, 6])
    }

    /// Large files go through the uncached path (threaded above 8 MiB); sizes not a multiple of 4 KiB
    /// end with a cached tail; streamed pieces of odd sizes land in order.
    @Test(arguments: [1 << 20, (3 << 20) + 17, (9 << 20) + 4095])
    func largeUncachedFilesAreExact(size: Int) throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/big.bin"
        let bytes = patterned(size, salt: 3)
        let writer = try AtomicFileWriter(path: path, options: .init(uncached: true), expectedSize: Int64(size))
        var offset = 0
        var piece = 1
        while offset < size {
            let end = min(size, offset + piece)
            try writer.write(Array(bytes[offset..<end]))
            offset = end
            piece = piece * 3 + 7
        }
        try writer.commit()
        #expect(try SystemFile(path).readAll() == bytes)
        let pool = AlignedBufferPool(bufferSize: AtomicFileWriter.blockSize)
        try AtomicFileWriter.write(bytes, to: path, options: .init(uncached: true), pool: pool)
        #expect(try SystemFile(path).readAll() == bytes)
    }

    @Test func staleTemporaryFilesAreRemovedAndFreshOnesKept() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/photo.jpg"
        try AtomicFileWriter.write([1], to: path)
        let stale = folder.path + "/.photo.jpg.memora-AbC123"
        let fresh = folder.path + "/.photo.jpg.memora-XyZ789"
        try AtomicFileWriter.write([0], to: stale)
        try AtomicFileWriter.write([0], to: fresh)
        let now = Double(Date().timeIntervalSince1970)
        try SystemFile(stale, .readingAndWriting(createWith: nil)).setTimes(
            accessed: .init(seconds: Int64(now) - 3600, nanoseconds: 0), modified: .init(seconds: Int64(now) - 3600, nanoseconds: 0))
        AtomicFileWriter.removeStaleTemporaryFiles(besides: path)
        #expect(!FileSystem.exists(stale))
        #expect(FileSystem.exists(fresh))
        #expect(AtomicFileWriter.removeStaleTemporaryFiles(inFolder: folder.path, now: now + 3600) == 1)
        #expect(!FileSystem.exists(fresh) && FileSystem.exists(path))
    }
}
