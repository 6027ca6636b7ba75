import Foundation
import MemoraSystem
import Testing
@testable import VaultCrypto
import TestSupport

/// Adding and exporting long files in a task: progress after each block, and cancellation that
/// leaves nothing behind.
@Suite("Vault progress and cancellation")
struct VaultProgressTests {
    /// Progress reports, from the task's callbacks.
    final class Reports: Sendable {
        private let values = Locked<[(UInt64, UInt64)]>([])
        func append(_ done: UInt64, _ total: UInt64) { values.withLock { $0.append((done, total)) } }
        var all: [(UInt64, UInt64)] { values.withLock { $0 } }
    }

    @Test("add and export report increasing progress up to the total, and give the same bytes")
    func progress() async throws {
        // 2^12-byte chunks: a 3 MiB file is several blocks.
        let fixture = try VaultTests.Fixture(size: 3 * 1024 * 1024 + 5)
        defer { try? FileManager.default.removeItem(atPath: fixture.root) }
        let added = Reports()
        let photo = try await fixture.vault.add(fileAt: fixture.source, details: VaultPhotoDetails(format: "jpeg")) { added.append($0, $1) }.photo
        #expect(added.all.count > 1 && added.all.last?.0 == UInt64(fixture.plaintext.count) && added.all.allSatisfy { $0.1 == UInt64(fixture.plaintext.count) })
        #expect(zip(added.all, added.all.dropFirst()).allSatisfy { $0.0 < $1.0 }, "progress only grows")
        let exported = Reports()
        try await fixture.vault.export(photo.id, to: fixture.root + "/out.jpg") { exported.append($0, $1) }
        #expect(exported.all.last?.0 == UInt64(fixture.plaintext.count) && exported.all.count > 1)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture.root + "/out.jpg"))) == fixture.plaintext)
    }

    @Test("cancelling an add or an export mid-way leaves no file, no record and throws cancelled")
    func cancellation() async throws {
        let fixture = try VaultTests.Fixture(size: 3 * 1024 * 1024 + 5)
        defer { try? FileManager.default.removeItem(atPath: fixture.root) }
        let addition = Task { () async throws -> VaultAddition in
            try await fixture.vault.add(fileAt: fixture.source, details: VaultPhotoDetails(format: "jpeg")) { done, _ in
                if done > 0 { withUnsafeCurrentTask { $0?.cancel() } }  // cancelled after the first block was written
            }
        }
        await #expect { _ = try await addition.value } throws: { ($0 as? VaultCryptoError)?.code == .cancelled }
        #expect(try fixture.vault.photos(includeHidden: true).isEmpty, "no record")
        #expect(fixture.files(under: "Photos").isEmpty, "no file, no temporary file")

        let photo = try fixture.vault.add(fileAt: fixture.source, details: VaultPhotoDetails(format: "jpeg")).photo
        let output = fixture.root + "/out.jpg"
        let export = Task { () async throws in
            try await fixture.vault.export(photo.id, to: output) { _, _ in withUnsafeCurrentTask { $0?.cancel() } }
        }
        await #expect { try await export.value } throws: { ($0 as? VaultCryptoError)?.code == .cancelled }
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root).allSatisfy { !$0.contains("out.jpg") }, "no temporary file")
    }
}
