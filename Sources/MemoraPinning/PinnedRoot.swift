/// A root certificate a pinned endpoint's chain may end at: its name (the file in Debian's
/// ca-certificates, or the file it was loaded from), its SHA-256 fingerprint and its PEM text.
public struct PinnedRoot: Sendable, Hashable {
    /// The certificate's name, for messages ("GTS_Root_R1").
    public var name: String
    /// Its SHA-256 fingerprint, colon-separated upper-case hex (as `openssl x509 -fingerprint -sha256` prints it).
    public var sha256: String
    /// The certificate, PEM-encoded.
    public var pem: String

    /// A root.
    public init(name: String, sha256: String, pem: String) {
        self.name = name
        self.sha256 = sha256
        self.pem = pem
    }
}
