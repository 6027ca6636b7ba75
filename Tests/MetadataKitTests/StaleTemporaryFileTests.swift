import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("Temporary files of killed writers")
struct StaleTemporaryFileTests {
    @Test("a later write removes an old leftover temporary file of the same photo, but not a recent one")
    func cleanup() throws {
        let path = try makeJPEG()
        let folder = (path as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let old = folder + "/.photo.jpg.memora-AbC123", recent = folder + "/.photo.jpg.memora-XyZ789"
        for leftover in [old, recent] { try Data([1, 2, 3]).write(to: URL(fileURLWithPath: leftover)) }
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: old)
        try CaptionWriter.write(CaptionUpdate(caption: "Clean"), to: path)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["photo.jpg", ".photo.jpg.memora-XyZ789"])
    }
}
