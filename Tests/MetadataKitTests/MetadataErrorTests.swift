import Foundation
import ImageKit
@testable import MetadataKit
import Testing
import TestSupport

@Suite("Metadata errors: codes, errno and whether retrying helps")
struct MetadataErrorTests {
    @Test("a missing file is not-found with ENOENT, a read-only one not-writable, neither retryable; the path appears once")
    func codes() throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            try CaptionWriter.write(CaptionUpdate(caption: "x"), to: folder + "/missing.jpg")
            Issue.record("a missing file was written")
        } catch {
            #expect(error.code == .notFound && error.systemCode == ENOENT && !error.isRetryable)
            #expect(error.description.components(separatedBy: "missing.jpg").count == 2, "\(error)")
        }
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        do {
            try CaptionWriter.write(CaptionUpdate(caption: "x"), to: path)
            Issue.record("a read-only file was written")
        } catch {
            #expect(error.code == .notWritable && !error.isRetryable)
            #expect(error.description.contains("read-only") && error.description.contains("the original is intact"))
        }
        do {
            _ = try MetadataReader.read(contentsOf: folder)
            Issue.record("a folder was read")
        } catch {
            #expect(error.code != .changed && !error.isRetryable)
        }
    }
}
