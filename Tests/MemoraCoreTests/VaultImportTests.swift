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

    /// `bytes` as chunks of `size`.
    static func chunks(_ bytes: [UInt8], size: Int) -> AsyncThrowingStream<[UInt8], any Error> {
        AsyncThrowingStream { continuation in
            for start in stride(from: 0, to: bytes.count, by: size) { continuation.yield(Array(bytes[start..<min(bytes.count, start + size)])) }
            continuation.finish()
        }
    }

    @Test("a capture that fits in memory goes in like a file (size, date, thumbnail; location removed when asked); a larger one streams without a thumbnail, and refuses a location strip it cannot do")
    func capture() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try makeCameraJPEG(in: folder, name: "camera.jpg", width: 640, height: 480))))
        let vault = try Vault.create(at: folder + "/vault", keyStore: InMemoryKeyStore())

        let stripped = try await VaultImport(stripsLocation: true).add(chunks: Self.chunks(bytes, size: 1000), name: "cam.jpg", to: vault).photo
        #expect(stripped.format == "jpeg" && stripped.width == 640 && stripped.takenAt != nil && stripped.hasThumbnail && stripped.originalFilename == "cam.jpg")
        #expect(try MetadataReader.read(try vault.contents(of: stripped.id), source: "stored").gps == nil)

        let small = VaultImport(captureMemoryLimit: 4096)
        let streamed = try await small.add(chunks: Self.chunks(bytes, size: 1000), name: "big.jpg", to: vault).photo
        #expect(streamed.format == "jpeg" && streamed.width == 640 && streamed.takenAt != nil && !streamed.hasThumbnail)
        #expect(try vault.contents(of: streamed.id) == bytes)

        let count = try vault.photos().count
        do {
            _ = try await VaultImport(stripsLocation: true, captureMemoryLimit: 4096).add(chunks: Self.chunks(bytes, size: 1000), name: "big.jpg", to: vault)
            Issue.record("a location strip of a streamed photo was accepted")
        } catch {
            #expect(error.code == .invalidConfiguration && error.message.contains("nothing was stored"), "\(error)")
        }
        #expect(try vault.photos().count == count)
    }

    @Test("moving originals: each removed only once its encrypted copy reads back as stored, also when an earlier run or another file stored it; a failure keeps its own")
    func moveOriginals() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try makeCameraJPEG(in: folder, name: "a.jpg", width: 320, height: 240)
        let firstBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: first)))
        let second = try makeCameraJPEG(in: folder, name: "b.jpg", width: 200, height: 100)
        let vault = try Vault.create(at: folder + "/vault", keyStore: InMemoryKeyStore())
        let copy = folder + "/copy-of-a.jpg"
        try Data(firstBytes).write(to: URL(fileURLWithPath: copy))
        _ = try VaultImport().add(copy, to: vault)  // the vault holds a's content already, from another file

        let results = VaultImport(stripsLocation: true).move([first, folder + "/missing.jpg", second], into: vault)
        // a.jpg: its stripped copy is new content, stored and verified, so the original goes.
        let movedA = try results[0].get()
        #expect(movedA.removed && !FileManager.default.fileExists(atPath: first))
        #expect(try MetadataReader.read(try vault.contents(of: movedA.addition.photo.id), source: "stored").gps == nil)
        #expect((try? results[1].get()) == nil)
        #expect(try results[2].get().removed && !FileManager.default.fileExists(atPath: second))

        // Without the strip, the copy's content is already in the vault (an earlier run encrypted it
        // and was killed before it removed the file): the vault's copy reads back as the file, so it goes.
        let rerun = try VaultImport().move([copy], into: vault)[0].get()
        #expect(rerun.removed && rerun.addition.wasAlreadyStored && rerun.keptBecause == nil)
        #expect(!FileManager.default.fileExists(atPath: copy))
        #expect(try vault.photos().count == 3, "nothing stored twice")
    }

    @Test("a rerun with --strip-location removes an original whose stripped copy an earlier run stored; the vault's copy is checked, not trusted")
    func moveRerunAfterStrip() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photo = try makeCameraJPEG(in: folder, name: "a.jpg", width: 320, height: 240)
        let vault = try Vault.create(at: folder + "/vault", keyStore: InMemoryKeyStore())
        let earlier = try VaultImport(stripsLocation: true).add(photo, to: vault)  // killed before the removal
        let moved = try VaultImport(stripsLocation: true).move([photo], into: vault)[0].get()
        #expect(moved.addition.wasAlreadyStored && moved.addition.photo.id == earlier.photo.id)
        #expect(moved.removed && !FileManager.default.fileExists(atPath: photo))

        // A vault copy that no longer decrypts keeps the original, with an error.
        let second = try makeCameraJPEG(in: folder, name: "b.jpg", width: 200, height: 100)
        let stored = try VaultImport().add(second, to: vault)
        let encrypted = folder + "/vault/" + stored.photo.relativePath
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: encrypted)))
        bytes[bytes.count / 2] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: encrypted))
        #expect((try? VaultImport().move([second], into: vault)[0].get()) == nil)
        #expect(FileManager.default.fileExists(atPath: second))
    }
}
