import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("Concurrent changes")
struct ConcurrentChangeTests {
    @Test("a file changed by someone else while the caption is prepared is not replaced, and keeps their change")
    func changedMeanwhile() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        // Another program rewrites the photo after Memora read it (same size, one byte changed).
        var theirs = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        theirs[theirs.count - 3] ^= 0xFF
        let change = theirs
        let options = CaptionWriteOptions(beforeReplacing: { _ in try Data(change).write(to: URL(fileURLWithPath: path)) })
        do {
            try CaptionWriter.write(CaptionUpdate(caption: "Not this one"), to: path, options: options)
            Issue.record("the write must notice the change")
        } catch {
            #expect(error.code == .changed && error.isRetryable, "a change by another program is worth another try: \(error)")
            #expect(error.reason.contains("changed"))
        }
        #expect(try MetadataReader.read(contentsOf: path).captions.caption == nil)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == theirs)
    }
}
