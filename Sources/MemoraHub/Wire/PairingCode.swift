public import Foundation

/// What a hub's pairing QR code holds (the seed's `ServerConfig`): the hub's address and port and a
/// pairing token. The token is short-lived and single-use: a device exchanges it for a device token of
/// its own (`POST /api/hub/pair`), so a photographed QR code is worth nothing minutes later.
public struct PairingCode: Sendable, Hashable, Codable {
    /// The hub's address on the home network (the seed's field name).
    public var serverIP: String
    /// The hub's port.
    public var port: Int
    /// The pairing token (the seed's `authToken`). Secret until used.
    public var authToken: String
    /// The hub's name, shown by the app.
    public var serverName: String?
    /// When the pairing token stops working, in milliseconds since 1970.
    public var expiresAt: Int64?

    /// A configuration.
    public init(serverIP: String, port: Int, authToken: String, serverName: String? = nil, expiresAt: Int64? = nil) {
        self.serverIP = serverIP
        self.port = port
        self.authToken = authToken
        self.serverName = serverName
        self.expiresAt = expiresAt
    }

    /// Reads the QR code's text: the JSON, or a `memora-hub://pair?...` / `http://HOST:PORT/pair?token=…` address.
    public init(qrText text: String) throws(HubError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{") {
            do {
                self = try JSONDecoder().decode(PairingCode.self, from: Data(trimmed.utf8))
            } catch {
                throw .invalidPairingCode("the QR code's JSON is not a hub's: it needs serverIP, port and authToken")
            }
        } else if let parts = URLComponents(string: trimmed), let host = parts.host, !host.isEmpty,
                  let token = parts.queryItems?.first(where: { $0.name == "token" })?.value, !token.isEmpty {
            self.init(serverIP: host, port: parts.port ?? (parts.scheme == "https" ? 443 : 80), authToken: token)
        } else {
            throw .invalidPairingCode("give the QR code's JSON ({\"serverIP\":…,\"port\":…,\"authToken\":…}) or its pairing address (http://HOST:PORT/pair?token=…)")
        }
        guard (1...65535).contains(port) else { throw .invalidPairingCode("the port \(port) is not between 1 and 65535") }
        guard !serverIP.isEmpty, serverIP.count <= 253, !serverIP.contains("/"), !serverIP.contains("@") else {
            throw .invalidPairingCode("the hub's address is not a host name or IP address")
        }
    }

    /// The hub's base address.
    public var url: URL {
        let host = serverIP.contains(":") && !serverIP.hasPrefix("[") ? "[\(serverIP)]" : serverIP
        return URL(string: "http://\(host):\(port)")!
    }
}

/// The name ``PairingCode`` had before: it is a hub's pairing code, not a server's configuration
/// (that is MemoraServer's `ServerConfiguration`).
@available(*, deprecated, renamed: "PairingCode")
public typealias ServerConfig = PairingCode
