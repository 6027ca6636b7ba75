import MemoraSync
import Testing

/// A pull cursor, `v1.EPOCH.VERSION`: what the server gives is read back the same, and text that is
/// not one of its cursors is refused rather than guessed at.
@Suite("SyncCursor")
struct SyncCursorTests {
    @Test("a cursor's text reads back as the same cursor, from version 0 to Int64.max", arguments: [Int64(0), 1, 42, 9_007_199_254_740_991, .max])
    func roundTrip(version: Int64) throws {
        let cursor = SyncCursor(epoch: "Zk3_q-8aPwXs0LmN", version: version)
        #expect(cursor.text == "v1.Zk3_q-8aPwXs0LmN.\(version)")
        let read = try #require(SyncCursor(cursor.text))
        #expect(read == cursor)
        #expect(read.text == cursor.text)
    }

    @Test("an epoch of 64 characters is read; 65, or none, is not")
    func epochLength() {
        let longest = String(repeating: "e", count: 64)
        #expect(SyncCursor("v1.\(longest).7") == SyncCursor(epoch: longest, version: 7))
        #expect(SyncCursor("v1.\(longest)e.7") == nil)
        #expect(SyncCursor("v1..7") == nil)
    }

    @Test("text that is not one of the server's cursors is refused", arguments: [
        "", "v1", "v1.epoch", "v1.epoch.", ".epoch.3", "v2.epoch.3", "V1.epoch.3", "v1.epoch.3.4", "v1.epoch.three", "v1.epoch.-1",
        "v1.epoch.9223372036854775808", "v1.epoch.1e3", "v1.epoch.3 ", " v1.epoch.3", "v1.epoch.0x10", "v1-epoch-3", "3",
    ])
    func malformed(text: String) {
        #expect(SyncCursor(text) == nil, "\(text.debugDescription) was read as \(String(describing: SyncCursor(text)))")
    }

    @Test("a cursor whose version was edited reads as that version (the server decides whether it can serve it); one whose epoch was edited keeps the edit")
    func tampered() throws {
        let given = SyncCursor(epoch: "Zk3_q-8aPwXs0LmN", version: 12)
        let later = try #require(SyncCursor(given.text.replacingOccurrences(of: ".12", with: ".99999")))
        #expect(later.epoch == given.epoch && later.version == 99_999)
        let otherServer = try #require(SyncCursor(given.text.replacingOccurrences(of: "Zk3", with: "Ak3")))
        #expect(otherServer.epoch == "Ak3_q-8aPwXs0LmN" && otherServer != given)
    }

    @Test("every text that is read is the cursor's own text: no second spelling of a version", arguments: ["v1.epoch.+3", "v1.epoch.03", "v1.epoch.-0"])
    func oneSpelling(text: String) {
        // Int64(_:) alone would take a leading '+' or '-' and leading zeros, so "v1.epoch.+3" and
        // "v1.epoch.03" would read as version 3 although the server never gives them.
        #expect(SyncCursor(text) == nil, "\(text) was read as \(String(describing: SyncCursor(text)?.text))")
    }
}
