import Foundation
import Testing
@testable import VaultCrypto
import TestSupport

/// Large vault files go through the system layer's threaded writer: 2 MiB blocks on a writing
/// thread, direct I/O where the file system allows it, the last partial block through the cache.
@Suite("Large vault files written in blocks")
struct VaultFileWriterTests {
    /// Folders to write into: the temporary folder (ext4 on CI: direct I/O) and, when present,
    /// /dev/shm (tmpfs refuses O_DIRECT: the blocks go through the page cache).
    static var folders: [String] {
        FileManager.default.isWritableFile(atPath: "/dev/shm") ? [NSTemporaryDirectory(), "/dev/shm/"] : [NSTemporaryDirectory()]
    }

    @Test("pieces of every size add up to the exact file, whatever the alignment of its end", arguments: folders)
    func exactBytes(base: String) throws {
        let folder = base + "blockwriter-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let content = patterned(8 << 20 + 4096 * 3 + 7, salt: 9)
        let writer = try VaultFileWriter(path: folder + "/out", mode: 0o600, expectedSize: UInt64(content.count))
        var offset = 0
        for piece in [1, 4095, (2 << 20) + 3, 64 << 10, 17] + Array(repeating: 1 << 20, count: 5) {
            let end = min(content.count, offset + piece)
            try content.withUnsafeBytes { try writer.write(UnsafeRawBufferPointer(rebasing: $0[offset..<end])) }
            offset = end
        }
        try content.withUnsafeBytes { try writer.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
        try writer.commit()
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/out"))) == content)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out"])
    }

    @Test("a 16 MiB photo round-trips through encryptFile and decryptFile; a damaged chunk near its end leaves nothing behind")
    func largeLOCAFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plaintext = patterned(16 << 20 | 12_345, salt: 3)
        try Data(plaintext).write(to: URL(fileURLWithPath: folder + "/video.mov"))
        let key = SecretKey()
        try LOCACipher().encryptFile(at: folder + "/video.mov", to: folder + "/video.loca", key: key)
        let header = try LOCACipher.header(ofFileAt: folder + "/video.loca")
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/video.loca")
        #expect((attributes[.size] as? Int).map(UInt64.init) == header.fileSize)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        var sealed = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/video.loca")))
        #expect(try LOCACipher.decrypt(sealed, key: key) == plaintext)
        try LOCACipher.decryptFile(at: folder + "/video.loca", to: folder + "/export.mov", key: key)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/export.mov"))) == plaintext)

        // Several blocks of plaintext are on the disk before the last chunk fails to verify.
        sealed[sealed.count - 100] ^= 0x01
        try Data(sealed).write(to: URL(fileURLWithPath: folder + "/damaged.loca"))
        #expect { try LOCACipher.decryptFile(at: folder + "/damaged.loca", to: folder + "/damaged.mov", key: key) } throws: {
            $0.isVaultError(.authenticationFailed, path: folder + "/damaged.loca", mentioning: "chunk \(header.chunkCount - 1) failed")
        }
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["video.mov", "video.loca", "export.mov", "damaged.loca"])
    }
}
