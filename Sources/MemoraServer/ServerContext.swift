public import Hummingbird
internal import NIOCore

/// The request context of the server's routes: the client's address and, after authentication, its device.
public struct ServerContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The TCP peer's IP address.
    public let remoteIP: String
    /// The client's IP address: the peer's, or, behind a trusted reverse proxy, the one the proxy
    /// forwarded (``ServerConfiguration/trustedProxies``). The rate limit's key before authentication.
    public var clientIP: String
    /// The port of this server the connection came in on.
    public let localPort: Int?
    /// The authenticated device's id.
    public var deviceID: String?
    /// Whether the client reached the server over HTTPS: a trusted reverse proxy said so
    /// (`X-Forwarded-Proto: https`; this server itself serves plain HTTP). The dashboard's cookie is
    /// then `Secure`.
    public var isHTTPS = false

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteIP = source.channel.remoteAddress?.ipAddress ?? "unknown"
        clientIP = remoteIP
        localPort = source.channel.localAddress?.port
    }

    /// Bodies are read by the routes themselves, each with its own bound.
    public var maxUploadSize: Int { 4 * 1024 * 1024 }
}
