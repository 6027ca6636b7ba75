import Foundation
import ImageKit
import MetadataKit
import Testing
import VaultCrypto
@testable import MemoraCore
import TestSupport

/// The one call that puts a photo into the vault (the CLI's `vault add` and the demo use it).
@Suite("Vault import")
struct VaultImportTests {
    @Test("a camera JPEG goes in with its size, date, tags and an upright thumbnail; stripping the location leaves the original alone")
    func addsWithDetailsAndStripsLocation() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photo = try makeCameraJPEG(in: folder, name: "camera.jpg", width: 640, height: 480)
        let before = try Data(contentsOf: URL(fileURLWithPath: photo))
        #expect(try MetadataReader.read(contentsOf: photo).gps != nil)
        let vault = try Vault.create(at: folder + "/vault", keyStore: InMemoryKeyStore())

        let kept = try VaultImport(tags: ["trip"]).add(photo, to: vault).photo
        #expect(kept.format == "jpeg" && kept.width == 640 && kept.height == 480 && kept.tags == ["trip"])
        #expect(kept.takenAt != nil, "the date comes from the EXIF DateTimeOriginal")
        let thumbnail = try #require(try vault.thumbnail(of: kept.id))
        let decoded = try ImageDecoder.decode(thumbnail, source: "thumbnail")
        #expect(max(decoded.width, decoded.height) == 384)

        let stripped = try VaultImport(thumbnailSize: nil, stripsLocation: true).add(photo, to: vault).photo
        #expect(try vault.thumbnail(of: stripped.id) == nil)
        try vault.export(stripped.id, to: folder + "/exported.jpg")
        #expect(try MetadataReader.read(contentsOf: folder + "/exported.jpg").gps == nil)
        try vault.export(kept.id, to: folder + "/kept.jpg")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/kept.jpg")) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == before, "the original is never changed")
    }

    @Test("a batch goes on past a file that cannot be added and reports each result")
    func batchReportsEachResult() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photo = try makeCameraJPEG(in: folder, name: "a.jpg")
        let vault = try Vault.create(at: folder + "/vault", keyStore: InMemoryKeyStore())
        var progress: [Int] = []
        let results = VaultImport().add([folder + "/missing.jpg", photo], to: vault) { completed, _ in progress.append(completed) }
        #expect(progress == [1, 2])
        #expect((try? results[0].get()) == nil)
        if case .failure(let error) = results[0] {
            let missing = folder + "/missing.jpg"
            #expect(error.code == .vaultFailed && error.path == missing && error.message.components(separatedBy: missing).count == 2, "\(error)")
        }
        #expect((try? results[1].get())?.photo.originalFilename == "a.jpg")
        #expect(try vault.photos().count == 1)
    }
}
