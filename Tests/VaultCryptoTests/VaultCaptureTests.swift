import Foundation
import MemoraSystem
import Testing
@testable import VaultCrypto
import TestSupport

/// Capturing a photo from a stream of chunks: encrypted as it arrives, never in plain text on the disk.
@Suite("Capturing into the vault from a stream")
struct VaultCaptureTests {
    /// `bytes` as chunks of the given sizes, in turn (the last one takes what is left).
    static func chunks(_ bytes: [UInt8], sizes: [Int]) -> AsyncThrowingStream<[UInt8], any Error> {
        AsyncThrowingStream { continuation in
            var start = 0, index = 0
            while start < bytes.count {
                let size = max(1, sizes[index % sizes.count])
                continuation.yield(Array(bytes[start..<min(bytes.count, start + size)]))
                start += size
                index += 1
            }
            continuation.finish()
        }
    }

    /// Every file under `folder`, hidden ones too, relative to it (but the lock file, which a vault
    /// makes the first time it is locked and keeps).
    static func allFiles(_ folder: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? [])
            .filter { $0 != "vault.lock" && (try? FileManager.default.attributesOfItem(atPath: folder + "/" + $0)[.type] as? FileAttributeType) == .typeRegular }
    }

    @Test("chunks of uneven sizes go in whole across several spool records; no vault file holds a window of the plaintext; the spool is gone",
          arguments: [0, 1, 4096, (1 << 20) + 4095, 2 * (1 << 20) + 1234])
    func roundTrip(size: Int) async throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let vault = try Vault.create(at: root + "/vault", keyStore: InMemoryKeyStore(), cipher: try LOCACipher(chunkExponent: 12))
        let plaintext = patterned(size, salt: 3)
        let addition = try await vault.add(chunks: Self.chunks(plaintext, sizes: [1, 7, 4096, 65_537, 300_001]), originalFilename: "capture.jpg",
                                           details: VaultPhotoDetails(format: "jpeg"))
        #expect(!addition.wasAlreadyStored && addition.photo.originalSize == Int64(size) && addition.photo.originalFilename == "capture.jpg")
        #expect(try vault.contents(of: addition.photo.id) == plaintext)
        #expect(try vault.plaintextDigest(of: addition.photo.id) == SHA256Digest.hash(plaintext))
        let files = Self.allFiles(root + "/vault")
        #expect(!files.contains { $0.contains(".spool.") }, "\(files)")
        if size >= 164 {
            let window = Array(plaintext[100..<164])
            for file in files {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: root + "/vault/" + file)))
                #expect(bytes.count < 64 || !(0...(bytes.count - 64)).contains { Array(bytes[$0..<$0 + 64]) == window }, "\(file) holds plaintext")
            }
        }
        // The same content again: recognised, not stored twice, no file left behind.
        let again = try await vault.add(chunks: Self.chunks(plaintext, sizes: [size + 1]), originalFilename: "again.jpg", details: VaultPhotoDetails(format: "jpeg"))
        #expect(again.wasAlreadyStored && again.photo.id == addition.photo.id)
        #expect(Self.allFiles(root + "/vault").sorted() == files.sorted())
    }

    @Test("a stream that fails midway, or a cancelled capture, leaves the vault exactly as it was")
    func failureLeavesNothing() async throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let vault = try Vault.create(at: root + "/vault", keyStore: InMemoryKeyStore(), cipher: try LOCACipher(chunkExponent: 12))
        let before = Self.allFiles(root + "/vault").sorted()
        struct Dropped: Error, CustomStringConvertible { var description: String { "the camera went away" } }
        let failing = AsyncThrowingStream<[UInt8], any Error> { continuation in
            continuation.yield(patterned(3 << 20, salt: 1))
            continuation.finish(throwing: Dropped())
        }
        do {
            _ = try await vault.add(chunks: failing, originalFilename: "broken.jpg", details: VaultPhotoDetails(format: "jpeg"))
            Issue.record("a failed stream was stored")
        } catch {
            #expect(error.code == .readFailed && error.message.contains("the camera went away"), "\(error)")
        }
        let cancelled = Task {
            try await vault.add(chunks: AsyncThrowingStream<[UInt8], any Error> { continuation in
                for index in 0..<64 { continuation.yield(patterned(1 << 16, salt: UInt8(index))) }
                continuation.finish()
            }, originalFilename: "cancelled.jpg", details: VaultPhotoDetails(format: "jpeg"))
        }
        cancelled.cancel()
        let outcome = await cancelled.result
        #expect((try? outcome.get()) == nil)
        #expect(try vault.photos().isEmpty)
        #expect(Self.allFiles(root + "/vault").sorted() == before)
    }

    @Test("a spool a crash left (ciphertext under a key that died with the process) is removed when the vault is opened")
    func leftoverSpoolRemoved() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let keyStore = InMemoryKeyStore()
        _ = try Vault.create(at: root + "/vault", keyStore: keyStore)
        let spool = root + "/vault/" + VaultLayout.spoolPath(id: UUID().uuidString.lowercased())
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: spool))
        let other = root + "/vault/Thumbnails/.notes.spool.memora-abcdef"  // not a vault name: left alone
        try Data([1]).write(to: URL(fileURLWithPath: other))
        _ = try Vault.open(at: root + "/vault", keyStore: keyStore)
        #expect(!FileManager.default.fileExists(atPath: spool))
        #expect(FileManager.default.fileExists(atPath: other))
    }
}
