import Foundation
import Testing
@testable import MemoraSystem

/// The threaded block writer under ``AtomicFileWriter``, and writing past the page cache.
struct BlockWriterTests {
    /// The temporary folder (ext4 on CI: direct I/O) and, when present, /dev/shm (tmpfs refuses `O_DIRECT`).
    /// Whether the temporary folder's file system takes direct I/O (tmpfs does not).
    static var directIOAvailable: Bool {
        guard let folder = try? TemporaryFolder(),
              let probe = try? SystemFile(folder.path + "/probe", .creatingNew(permissions: 0o600), requireRegularFile: false) else { return false }
        return probe.setUncached(true)
    }

    static var folders: [String] {
        FileManager.default.isWritableFile(atPath: "/dev/shm") ? [NSTemporaryDirectory(), "/dev/shm/"] : [NSTemporaryDirectory()]
    }

    @Test("a block direct I/O refuses (here: not aligned) is written through the page cache instead")
    func directRefusalFallsBack() throws {
        let folder = try TemporaryFolder()
        let file = try SystemFile(folder.path + "/out", .creatingNew(permissions: 0o600), requireRegularFile: false)
        let direct = file.setUncached(true)
        let blocks = BlockWriter(file: file, pool: AlignedBufferPool(bufferSize: 1 << 20))
        let buffer = try blocks.takeBuffer()
        let content = (0..<100).map { UInt8($0) }
        content.withUnsafeBytes { buffer.copyMemory(from: $0) }
        blocks.submit(buffer, offset: 0, length: content.count, direct: direct)
        try blocks.finish()
        #expect(try SystemFile(folder.path + "/out").readAll() == content)
    }

    @Test("a write error on the writing thread reaches the caller as a typed error")
    func writeErrorSurfaces() throws {
        let folder = try TemporaryFolder()
        try AtomicFileWriter.write([], to: folder.path + "/read-only")
        let file = try SystemFile(folder.path + "/read-only")
        let blocks = BlockWriter(file: file, pool: AlignedBufferPool(bufferSize: 1 << 20))
        let buffer = try blocks.takeBuffer()
        blocks.submit(buffer, offset: 0, length: AlignedBufferPool.alignment, direct: false)
        #expect(throws: SystemError.self) { try blocks.finish() }
        #expect(throws: SystemError.self) { _ = try blocks.takeBuffer() }
    }

    /// Sizes around every boundary: below the direct-I/O minimum, at it, aligned and not, over one block.
    static let sizes = [0, 100, (1 << 20) - 1, 1 << 20, (1 << 20) + 3 * 4096 + 7, (8 << 20) + 4096 + 5]

    @Test("every size comes out byte for byte, in every kind of folder, with and without a batch's buffers", arguments: folders)
    func exactBytes(base: String) throws {
        let folder = base + "memora-system-" + UUID().uuidString
        try FileSystem.makeFolder(folder)
        defer { try? FileSystem.removeTree(folder) }
        let pool = AlignedBufferPool(bufferSize: AtomicFileWriter.blockSize)
        for (index, size) in Self.sizes.enumerated() {
            let content = patterned(size, salt: UInt8(index))
            try AtomicFileWriter.write(content, to: folder + "/out-\(size)", options: .init(uncached: true))
            #expect(try SystemFile(folder + "/out-\(size)").readAll() == content, "\(size) bytes")
            try AtomicFileWriter.write(content, to: folder + "/pooled-\(size)", options: .init(uncached: true), pool: pool)
            #expect(try SystemFile(folder + "/pooled-\(size)").readAll() == content, "\(size) bytes")
        }
        #expect(try FileSystem.entries(of: folder).count == 2 * Self.sizes.count)
    }

    @Test("on a disk file system the aligned part of a large file never enters the page cache",
          .enabled(if: directIOAvailable, "the temporary folder's file system takes no direct I/O (tmpfs): the exact-bytes test covers it"))
    func bypassesThePageCache() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/photo"
        let content = [UInt8](repeating: 0xA5, count: 3 << 20 | 123)
        try AtomicFileWriter.write(content, to: path, options: .init(uncached: true))
        let file = try SystemFile(path)
        // mincore: which pages of the file are in memory, without reading (and so caching) them.
        let mapping = try #require(mmap(nil, content.count, PROT_READ, MAP_SHARED, file.descriptor, 0))
        defer { munmap(mapping, content.count) }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var resident = [UInt8](repeating: 0, count: (content.count + pageSize - 1) / pageSize)
        #expect(mincore(mapping, content.count, &resident) == 0)
        let cachedPages = resident.filter { $0 & 1 != 0 }.count
        #expect(cachedPages <= 1, "only the last partial page went through the cache; \(cachedPages) of \(resident.count) are cached")
    }
}
