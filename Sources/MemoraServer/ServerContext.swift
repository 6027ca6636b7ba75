package import Hummingbird
internal import NIOCore

/// The request context of the server's routes: the client's address and, after authentication, its device.
/// Package-wide, not public: Hummingbird is how the server is built, not part of its API (a new
/// Hummingbird would otherwise be a new major version of MemoraServer).
package struct ServerContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The TCP peer's IP address.
    package let remoteIP: String
    /// The client's IP address: the peer's, or, behind a trusted reverse proxy, the one the proxy
    /// forwarded (``ServerConfiguration/trustedProxies``). The rate limit's key before authentication.
    package var clientIP: String
    /// The port of this server the connection came in on.
    package let localPort: Int?
    /// The authenticated device's id.
    package var deviceID: String?
    /// Whether the client reached the server over HTTPS: a trusted reverse proxy said so
    /// (`X-Forwarded-Proto: https`; this server itself serves plain HTTP). The dashboard's cookie is
    /// then `Secure`.
    package var isHTTPS = false

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteIP = source.channel.remoteAddress?.ipAddress ?? "unknown"
        clientIP = remoteIP
        localPort = source.channel.localAddress?.port
    }

    /// Bodies are read by the routes themselves, each with its own bound.
    package var maxUploadSize: Int { 4 * 1024 * 1024 }
}
