public import Foundation
internal import MemoraSystem

/// What a device keeps to talk to its server: the server, its own id and its token.
public struct SyncCredentials: Sendable, Hashable, Codable {
    /// The server's address.
    public var server: URL
    /// The device's random id.
    public var deviceID: String
    /// The bearer token (secret).
    public var token: String?
    /// When the token expires (milliseconds since 1970, the server's clock).
    public var expiresAt: Int64?

    /// Creates credentials.
    public init(server: URL, deviceID: String, token: String? = nil, expiresAt: Int64? = nil) {
        self.server = server
        self.deviceID = deviceID
        self.token = token
        self.expiresAt = expiresAt
    }

    /// A new random device id (32 hex digits).
    public static func newDeviceID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.string((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}

/// Where the credentials are cached, so a device works offline and across runs: a JSON file only
/// its owner may read (0600), replaced atomically.
public struct SyncCredentialFile: Sendable {
    /// The file.
    public let path: String

    /// Credentials kept at `path`.
    public init(path: String) { self.path = path }

    /// The cached credentials, nil when there are none.
    public func load() throws(SyncError) -> SyncCredentials? {
        guard FileSystem.exists(path) else { return nil }
        do {
            let bytes = try SystemFile(path).readAll()
            return try JSONDecoder().decode(SyncCredentials.self, from: Data(bytes))
        } catch {
            throw .database("cannot read the sync credentials in \(path): remove the file to register this device again")
        }
    }

    /// Saves the credentials (0600).
    public func save(_ credentials: SyncCredentials) throws(SyncError) {
        do {
            try FileSystem.makeFolder(SystemPath.folder(of: path), permissions: 0o700)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try AtomicFileWriter.write(Array(try encoder.encode(credentials)), to: path, options: .secret())
        } catch {
            throw .database("cannot save the sync credentials in \(path): \(error)")
        }
    }
}
