internal import Foundation
internal import NIOSSL

/// Which root certificates each pinned host's TLS chain must end at. A host that is not listed is
/// not pinned: it is trusted as the system trusts it (a custom OpenAI-compatible server, a model
/// server on this machine). ``cloud`` pins the two cloud caption endpoints to the roots Memora
/// ships (Docs/Captioning.md, "Pinned endpoints"; `scripts/check-pins.sh` checks them).
public struct TrustPins: Sendable, Hashable {
    /// The roots of each pinned host (lower-case host name).
    public private(set) var roots: [String: [PinnedRoot]]

    /// Pins each host to its roots.
    public init(_ roots: [String: [PinnedRoot]]) {
        self.roots = Dictionary(roots.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
    }

    /// Nothing pinned.
    public static let none = TrustPins([:])

    /// Gemini (`generativelanguage.googleapis.com`: Google Trust Services' roots) and OpenAI
    /// (`api.openai.com`: the roots of the CAs its edge, Cloudflare, issues from).
    public static let cloud = TrustPins([
        "generativelanguage.googleapis.com": CloudRoots.google,
        "api.openai.com": CloudRoots.openAI,
    ])

    /// The pinned hosts.
    public var hosts: [String] { roots.keys.sorted() }

    /// These hosts, and `host` too when given, all pinned to `roots` instead (`--pins FILE`).
    public func replacingRoots(with roots: [PinnedRoot], alsoFor host: String? = nil) -> TrustPins {
        var replaced = Dictionary(uniqueKeysWithValues: hosts.map { ($0, roots) })
        if let host { replaced[host.lowercased()] = roots }
        return TrustPins(replaced)
    }

    /// The roots `host` is pinned to; nil when it is not pinned.
    public func roots(for host: String) -> [PinnedRoot]? { roots[host.lowercased()] }

    /// These pins with `host` pinned to `roots` instead (nil: not pinned at all).
    public func pinning(_ host: String, to roots: [PinnedRoot]?) -> TrustPins {
        var copy = self
        copy.roots[host.lowercased()] = roots
        return copy
    }

    /// The certificates of a PEM file (`--pins FILE`): one or more `BEGIN CERTIFICATE` blocks, each
    /// checked to parse; named after the file and their place in it.
    public static func roots(inPEMFile path: String) throws(PinningError) -> [PinnedRoot] {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw PinningError(.unreadablePins, "the pins file \(path) cannot be read: \(error.localizedDescription)")
        }
        let blocks = text.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst().compactMap { block -> String? in
            guard let end = block.range(of: "-----END CERTIFICATE-----") else { return nil }
            return "-----BEGIN CERTIFICATE-----" + block[..<end.upperBound]
        }
        guard !blocks.isEmpty else { throw PinningError(.unreadablePins, "the pins file \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)") }
        var roots: [PinnedRoot] = []
        for (index, pem) in blocks.enumerated() {
            do {
                let certificate = try NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem)
                let digest = try certificate.toDERBytes()
                roots.append(PinnedRoot(name: "\(path)#\(index + 1)", sha256: PinnedTransport.fingerprint(ofDER: digest), pem: pem))
            } catch {
                throw PinningError(.unreadablePins, "certificate \(index + 1) of the pins file \(path) is not a valid certificate: \(error)")
            }
        }
        return roots
    }
}
