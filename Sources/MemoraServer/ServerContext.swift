public import Hummingbird
internal import NIOCore

/// The request context of the server's routes: the client's address and, after authentication, its device.
public struct ServerContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connected client's IP address (the rate limit's key before authentication).
    public let remoteIP: String
    /// The authenticated device's id.
    public var deviceID: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteIP = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Bodies are read by the routes themselves, each with its own bound.
    public var maxUploadSize: Int { 4 * 1024 * 1024 }
}
