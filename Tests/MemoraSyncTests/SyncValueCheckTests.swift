import MemoraSync
import Testing

/// The checks behind a synced field's kind.
@Suite("SyncValueCheck")
struct SyncValueCheckTests {
    @Test("an upload session's content type is a media type as Docs/openapi.json spells it (schemathesis: video/mp4* was taken)",
          arguments: [("video/mp4", true), ("audio/wav", true), ("application/vnd.ms-excel", true), ("image/svg+xml", true),
                      ("video/mp4; codecs=\"avc1\"", true), ("VIDEO/MP4", true), ("2m0/lL+3*", false), ("video/", false), ("/mp4", false),
                      ("video", false), ("video/mp4/x", false), ("-video/mp4", false), ("video/mp4 ", false), ("vidéo/mp4", false),
                      ("video/mp4;\u{1}", false), ("", false), (String(repeating: "a", count: 60) + "/" + String(repeating: "b", count: 40), false)])
    func mediaTypes(text: String, valid: Bool) {
        #expect(SyncValueCheck.isMediaType(text) == valid)
    }
}
