import Foundation

/// Makes the vault's catalogue tamper-evident (Docs/Vault.md, "The catalogue is authenticated").
///
/// A random 32-byte **catalogue key** is kept in the `vault` row, wrapped under the master key
/// like a photo key (``PhotoKeyWrapper``, with `vault-catalogue ‖ identifier` in place of a
/// photo id), so a key rotation re-wraps it and nothing else changes. From it, with HKDF-SHA256:
///
/// - the **MAC key** (`"LOCA v1 catalogue MAC"`): each `photo` row carries
///   `HMAC-SHA256(MAC key, "memora catalogue photo v1" ‖ 0x00 ‖ fields)`, and the `vault` row
///   `HMAC-SHA256(MAC key, "memora catalogue vault v1" ‖ 0x00 ‖ fields)`; each field is preceded
///   by its length as a big-endian u64, integers are big-endian u64, booleans one byte;
/// - the **content key** (`"LOCA v1 content hash"`): a photo's `content_hash` is
///   `HMAC-SHA256(content key, SHA-256(plaintext))`, so the catalogue never shows a plain hash
///   that could be matched against known photos.
struct CatalogueAuthenticator: Sendable {
    private let macKey: SecretKey
    private let contentKey: SecretKey

    /// The authenticator for `catalogueKey`.
    init(catalogueKey: SecretKey) {
        macKey = HKDF.deriveSecretKey(from: catalogueKey, salt: [], info: "LOCA v1 catalogue MAC")
        contentKey = HKDF.deriveSecretKey(from: catalogueKey, salt: [], info: "LOCA v1 content hash")
    }

    /// The id under which the catalogue key of vault `identifier` is wrapped (a photo id is a UUID, so none can equal it).
    static func wrappingID(vault identifier: String) -> String { "vault-catalogue " + identifier }

    /// The MAC of a photo row: over the fields a file operation or a duplicate check trusts.
    func mac(of record: VaultPhotoRecord) -> Data {
        var message = Self.domain("memora catalogue photo v1")
        for text in [record.id, record.relativePath, record.originalFilename, record.format] { Self.append(Array(text.utf8), to: &message) }
        for number in [record.originalSize, record.encryptedSize] { Self.append(Self.bigEndian(UInt64(bitPattern: number)), to: &message) }
        Self.append([record.hasThumbnail ? 1 : 0], to: &message)
        Self.append(record.contentHash.map { [UInt8]($0) } ?? [], to: &message)
        return mac(message)
    }

    /// The MAC of the `vault` row: its identifier and format version.
    func mac(of record: VaultRecord) -> Data {
        var message = Self.domain("memora catalogue vault v1")
        Self.append(Array(record.identifier.utf8), to: &message)
        Self.append(Self.bigEndian(UInt64(record.formatVersion)), to: &message)
        return mac(message)
    }

    /// Whether `stored` is the expected MAC (constant time).
    func matches(_ stored: Data?, _ expected: Data) -> Bool {
        guard let stored, stored.count == expected.count else { return false }
        return [UInt8](stored).withUnsafeBytes { a in [UInt8](expected).withUnsafeBytes { b in Sodium.constantTimeEqual(a, b) } }
    }

    /// The keyed content hash of a plaintext whose SHA-256 is `digest`.
    func contentHash(ofDigest digest: [UInt8]) -> Data {
        Data(contentKey.withUnsafeBytes { key in digest.withUnsafeBytes { Sodium.hmacSHA256(key: key, messages: [$0]) } })
    }

    private func mac(_ message: [UInt8]) -> Data {
        Data(macKey.withUnsafeBytes { key in message.withUnsafeBytes { Sodium.hmacSHA256(key: key, messages: [$0]) } })
    }

    private static func domain(_ label: String) -> [UInt8] { Array(label.utf8) + [0] }

    private static func append(_ field: [UInt8], to message: inout [UInt8]) {
        message += bigEndian(UInt64(field.count)) + field
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }
}
