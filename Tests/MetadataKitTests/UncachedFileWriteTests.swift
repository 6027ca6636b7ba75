import Foundation
import ImageKit
import Testing
@testable import MetadataKit

/// Large rewrites (a caption on a multi-megabyte photo) go to the disk past the page cache where
/// the file system allows it, the last partial block through the cache; small ones and file
/// systems that refuse `O_DIRECT` (tmpfs) go through the cache.
@Suite("Photos written past the page cache")
struct UncachedFileWriteTests {
    /// The temporary folder (ext4 on CI: direct I/O) and, when present, /dev/shm (tmpfs refuses `O_DIRECT`).
    static var folders: [String] {
        FileManager.default.isWritableFile(atPath: "/dev/shm") ? [NSTemporaryDirectory(), "/dev/shm/"] : [NSTemporaryDirectory()]
    }

    /// Sizes around every boundary: below the direct-I/O minimum, at it, aligned and not, over one chunk.
    static let sizes = [0, 100, UncachedFileWrite.minimumSize - 1, UncachedFileWrite.minimumSize, UncachedFileWrite.minimumSize + 3 * 4096 + 7,
                        UncachedFileWrite.chunkSize, 2 * UncachedFileWrite.chunkSize + 4096 + 5]

    @Test("every size comes out byte for byte, in every kind of folder", arguments: folders)
    func exactBytes(base: String) throws {
        let folder = try makeTemporaryFolder(in: base)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (index, size) in Self.sizes.enumerated() {
            let content = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12 &+ index) }
            let path = folder + "/out-\(size)"
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            #expect(descriptor >= 0)
            #expect(UncachedFileWrite.write(content, to: descriptor) == nil)
            close(descriptor)
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == content, "\(size) bytes")
        }
    }

    @Test("one set of a batch's buffers serves files of every size in turn, byte for byte", arguments: folders)
    func sharedBuffers(base: String) throws {
        let folder = try makeTemporaryFolder(in: base)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let buffers = UncachedFileWrite.Buffers()
        for (index, size) in [3 << 20 | 5, 1 << 20, 17 << 20 | 3, 100, 2 << 20].enumerated() {
            let content = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 13 &+ index) }
            let path = folder + "/out-\(index)"
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            #expect(UncachedFileWrite.write(content, to: descriptor, buffers: buffers) == nil)
            close(descriptor)
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == content, "\(size) bytes")
        }
    }

    @Test("on a disk file system the aligned part of a large file never enters the page cache")
    func bypassesThePageCache() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/photo"
        let content = [UInt8](repeating: 0xA5, count: 3 << 20 | 123)
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        defer { close(descriptor) }
        #expect(UncachedFileWrite.write(content, to: descriptor) == nil)
        let probe = open(folder + "/probe", O_WRONLY | O_CREAT | O_CLOEXEC | Self.directFlag, 0o600)
        guard probe >= 0 else { return }  // this file system refuses direct I/O: the exact-bytes test covers it
        close(probe)
        // mincore: which pages of the file are in memory, without reading (and so caching) them.
        let mapping = try #require(mmap(nil, content.count, PROT_READ, MAP_SHARED, descriptor, 0))
        defer { munmap(mapping, content.count) }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var resident = [UInt8](repeating: 0, count: (content.count + pageSize - 1) / pageSize)
        #expect(mincore(mapping, content.count, &resident) == 0)
        let cachedPages = resident.filter { $0 & 1 != 0 }.count
        #expect(cachedPages <= 1, "only the last partial page went through the cache; \(cachedPages) of \(resident.count) are cached")
    }

    @Test("a write error is reported, not swallowed")
    func writeErrorReported() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = FileManager.default.createFile(atPath: folder + "/read-only", contents: Data())
        let descriptor = open(folder + "/read-only", O_RDONLY | O_CLOEXEC)
        defer { close(descriptor) }
        for size in [10, 2 << 20] {
            #expect(UncachedFileWrite.write([UInt8](repeating: 1, count: size), to: descriptor) != nil)
        }
    }

    @Test("a caption on a multi-megabyte photo is written, verified and readable, on disk and on tmpfs", arguments: folders)
    func largePhotoCaption(base: String) throws {
        let folder = try makeTemporaryFolder(in: base)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/large.jpg"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 2400, height: 1800, seed: 4), to: path,
                               as: .jpeg(JPEGEncodingOptions(quality: 1.0)))
        let before = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(before.count > UncachedFileWrite.minimumSize)
        let pixels = try ImageDecoder.decode(contentsOf: path)
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "A large photo, Zoë 🌸"), to: path)
        #expect(try MetadataReader.read(contentsOf: path).captions.caption == "A large photo, Zoë 🌸")
        #expect(try ImageDecoder.decode(contentsOf: path) == pixels)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["large.jpg"])
    }

    /// Linux's `O_DIRECT` (not exported by Swift's Glibc module).
    static var directFlag: Int32 {
        #if arch(arm64)
        return 0o200000
        #else
        return 0o40000
        #endif
    }
}
