public import Logging
public import MemoraSystem

/// How a Memora server runs: where it listens, its limits, its join code, its logger. Durations are
/// `Duration`s and the logger a swift-log `Logger`, as in Hummingbird's and async-http-client's
/// configurations.
public struct ServerConfiguration: Sendable {
    /// The address to listen on (`127.0.0.1` by default; `0.0.0.0` for the home network).
    public var host: String = "127.0.0.1"
    /// The port (`0` picks a free one).
    public var port: Int = 8787
    /// The code a device gives to register. Secret: printed once by `memora-server`, never logged.
    public var joinCode: String
    /// How long a device token lasts before the device must refresh it.
    public var tokenLifetime: Duration = .seconds(90 * 24 * 3600)
    /// The largest JSON body a route reads.
    public var maxJSONBytes: Int = 4 * 1024 * 1024
    /// How long a JSON body may take to arrive, from the first byte to the last, before the request
    /// is refused (`400`): a client that sends a byte a second cannot hold a handler for good.
    public var bodyTimeout: Duration = .seconds(60)
    /// How long a connection may stay open with nothing arriving (no request, or a request's head
    /// sent too slowly) before the server closes it.
    public var idleTimeout: Duration = .seconds(60)
    /// The largest object (photo) upload.
    public var maxObjectBytes: Int64 = 200 * 1024 * 1024
    /// The largest memory (a photo, video, voice recording or text) the hub takes.
    public var maxMemoryBytes: Int64 = 4 * 1024 * 1024 * 1024
    /// Requests each IP address may make at once, and per second after that (before authentication).
    public var ipBurst: Int = 120
    /// See ``ipBurst``.
    public var ipPerSecond: Double = 60
    /// Requests each device may make at once, and per second after that (after authentication).
    public var deviceBurst: Int = 60
    /// See ``deviceBurst``.
    public var devicePerSecond: Double = 20
    /// How long tombstones are kept before devices that have not synced since get a reset.
    public var tombstoneRetention: Duration = .seconds(180 * 24 * 3600)

    /// The addresses of reverse proxies in front of the server (Caddy, nginx on this machine: usually
    /// `127.0.0.1`). A request from one of them is taken to come from the address its `X-Forwarded-For`
    /// names (the last one no trusted proxy added), for the per-address rate limit; from any other
    /// peer the header is ignored, so a client cannot pick its own address. Empty by default.
    public var trustedProxies: [String] = []
    /// The names the dashboard may be reached by, besides this machine's addresses, `localhost` and its
    /// host name: the name a reverse proxy serves it under (`photos.example.home`). A page asked for
    /// under any other `Host` is refused, so a web page elsewhere cannot reach the dashboard through a
    /// name it points at this machine (DNS rebinding).
    public var serverNames: [String] = []

    /// Where the server reads the time: token and pairing-code lifetimes, dashboard sessions, leases,
    /// `updated_at`. `SystemClock` unless a test or a simulation moves time by hand
    /// (`ManualClock`). Rate limits run on the monotonic clock, whatever this says.
    public var clock: any MemoraClock = SystemClock()

    /// Where the server logs, and how much: `notice` by default (starts, registrations); `info` adds
    /// a line per request (method, route pattern, status, milliseconds) and every refusal's code.
    /// Tokens, captions, bodies, raw paths and queries are never logged.
    public var logger: Logger = {
        var logger = Logger(label: "memora-server")
        logger.logLevel = .notice
        return logger
    }()

    /// Creates a configuration with this join code and the defaults above.
    public init(joinCode: String) {
        self.joinCode = joinCode
    }
}

extension Int64 {
    /// `self + other`, held at Int64's bounds instead of trapping: an instant plus a configured duration.
    func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, held at Int64's bounds instead of trapping.
    func subtractingSaturating(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : difference
    }
}
