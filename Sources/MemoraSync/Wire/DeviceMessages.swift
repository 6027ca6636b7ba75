/// The body of `POST /api/devices/register`: a device joins the server (no user accounts).
public struct RegisterRequest: Sendable, Hashable, Codable {
    /// The device's own random identifier (16–128 letters, digits, `-`, `_`).
    public var deviceId: String
    /// `linux`, `ios`, `android` or `macos`.
    public var platform: String
    /// The server's join code, printed by `memora-server` when it starts.
    public var joinCode: String

    /// Creates a request.
    public init(deviceId: String, platform: String, joinCode: String) {
        self.deviceId = deviceId
        self.platform = platform
        self.joinCode = joinCode
    }
}

/// A device's token: what `register` and `refresh` answer.
public struct DeviceToken: Sendable, Hashable, Codable {
    /// The device id the token belongs to.
    public var deviceId: String
    /// The bearer token. Secret: never logged.
    public var token: String
    /// When the token stops working, in milliseconds since 1970 by the server's clock.
    public var expiresAt: Int64

    /// Creates a token.
    public init(deviceId: String, token: String, expiresAt: Int64) {
        self.deviceId = deviceId
        self.token = token
        self.expiresAt = expiresAt
    }
}

/// The answer of `GET /api/health`.
public struct HealthResponse: Sendable, Hashable, Codable {
    /// `ok`.
    public var status: String
    /// The server's version.
    public var version: String
    /// The storage in use: `sqlite` or `postgres`.
    public var storage: String

    /// Creates a response.
    public init(status: String, version: String, storage: String) {
        self.status = status
        self.version = version
        self.storage = storage
    }
}
