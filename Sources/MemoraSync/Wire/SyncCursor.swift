/// A pull cursor: opaque to devices, `v1.EPOCH.VERSION` inside. The epoch names the server's
/// database, so a cursor from another server (or a restored backup) makes the device start over.
package struct SyncCursor: Sendable, Hashable {
    /// The server database's random epoch.
    package var epoch: String
    /// The last version the device has.
    package var version: Int64

    package init(epoch: String, version: Int64) {
        self.epoch = epoch
        self.version = version
    }

    /// Parses a cursor's text; nil when it is not one of ours.
    package init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v1", !parts[1].isEmpty, parts[1].count <= 64,
              // Digits only, as `text` writes them: no sign, no leading zero (one spelling per cursor).
              parts[2].allSatisfy({ $0.isASCII && $0.isNumber }), parts[2] == "0" || parts[2].first != "0",
              let version = Int64(parts[2]) else { return nil }
        epoch = String(parts[1])
        self.version = version
    }

    /// The cursor's text.
    package var text: String { "v1.\(epoch).\(version)" }
}
