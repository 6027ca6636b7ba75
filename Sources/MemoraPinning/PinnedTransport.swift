internal import Foundation
internal import AsyncHTTPClient
public import MemoraHTTP
internal import MemoraSystem
internal import NIOCore
internal import NIOHTTP1
internal import NIOSSL

/// MemoraHTTP's transport for endpoints whose certificates are pinned: a request to a host in
/// ``pins`` goes over TLS through AsyncHTTPClient (swift-nio-ssl's BoringSSL), trusting only that
/// host's roots, with the host name checked against the certificate; any other request goes to
/// ``fallback``. (URLSession on Linux cannot pin: it gives its delegate no server-trust challenge
/// and no per-session certificate authority.) A chain that does not end at a pinned root fails at
/// once with the non-retryable `HTTPError.Code.untrustedCertificate`, naming the host, the roots it
/// is pinned to and how to change them.
public struct PinnedTransport: HTTPTransport {
    /// The pinned hosts and their roots.
    public let pins: TrustPins
    /// Where requests to hosts that are not pinned go.
    public let fallback: any HTTPTransport
    /// The most bytes an answer may have.
    public let maximumResponseBytes: Int
    let timeout: Duration
    let client: HTTPClient

    /// Pins `pins`' hosts; sends the rest through `fallback`. `timeout` is the longest a request
    /// waits for its answer when it does not say (a caption may take a minute).
    public init(pins: TrustPins = .cloud, fallback: any HTTPTransport, timeout: Duration = .seconds(120),
                maximumResponseBytes: Int = 64 << 20) {
        self.init(pins: pins, fallback: fallback, timeout: timeout, maximumResponseBytes: maximumResponseBytes, connectingTo: [:])
    }

    /// Pinned transports made on demand, for a front end's caption configuration (MemoraCore's
    /// `CaptionConfiguration.cloudTransport`, which links no TLS stack itself): each holds the hosts
    /// in `pins` to their roots and sends the rest through URLSession, with the system's trust,
    /// waiting the time it is made for.
    public static func maker(pins: TrustPins = .cloud) -> @Sendable (_ timeout: Duration) -> any HTTPTransport {
        { timeout in PinnedTransport(pins: pins, fallback: URLSessionTransport(timeout: timeout), timeout: timeout) }
    }

    /// For tests: `connectingTo` sends a host's connections to another address (a loopback server)
    /// while the certificate is still checked against the host's own name.
    package init(pins: TrustPins, fallback: any HTTPTransport, timeout: Duration, maximumResponseBytes: Int, connectingTo: [String: String]) {
        self.pins = pins
        self.fallback = fallback
        self.timeout = timeout
        self.maximumResponseBytes = maximumResponseBytes
        client = Clients.client(connectingTo: connectingTo)
    }

    public func send(_ request: HTTPRequest, progress: HTTPProgress?) async throws(HTTPError) -> HTTPResponse {
        guard let host = request.url.host, let roots = pins.roots(for: host) else {
            return try await fallback.send(request, progress: progress)
        }
        let endpoint = request.redactedURL
        guard request.url.scheme?.lowercased() == "https" else {
            throw HTTPError(.untrustedCertificate, endpoint: endpoint,
                            reason: "\(host) is pinned, and a pinned endpoint is reached over https only")
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.certificateVerification = .fullVerification  // the chain, and the host name
        do {
            tls.trustRoots = .certificates(try roots.map { try NIOSSLCertificate(bytes: Array($0.pem.utf8), format: .pem) })
        } catch {
            throw HTTPError(.untrustedCertificate, endpoint: endpoint, reason: "a root pinned for \(host) is not a valid certificate: \(error)")
        }
        tls.additionalTrustRoots = []
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        outgoing.tlsConfiguration = tls
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if !request.body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: request.body)) }
        let wait = request.timeout ?? timeout
        do {
            // NIO's own conversion, clamped to what a TimeAmount holds.
            let response = try await client.execute(outgoing, timeout: TimeAmount(max(wait, .zero)))
            let body = try await response.body.collect(upTo: maximumResponseBytes)
            progress?(Int64(request.body.count), Int64(request.body.count))
            var headers: [String: String] = [:]
            for header in response.headers { headers[header.name.lowercased()] = header.value }
            return HTTPResponse(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
        } catch {
            throw Self.failure(error, endpoint: endpoint, host: host, roots: roots, wait: wait)
        }
    }

    /// A failure in MemoraHTTP's words: a refused chain or host name is `untrustedCertificate`.
    static func failure(_ error: any Error, endpoint: String, host: String, roots: [PinnedRoot], wait: Duration) -> HTTPError {
        let text = String(describing: error)
        if error is NIOSSLExtraError || text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate") && error is NIOSSLError {
            return HTTPError(
                .untrustedCertificate, endpoint: endpoint,
                reason: "\(host) presented a certificate chain that does not end at a root it is pinned to (\(roots.map(\.name).joined(separator: ", "))), "
                    + "or a certificate for another name (\(text)). If the provider changed its certificate authority, update Memora, "
                    + "or give the new root with --pins FILE (a PEM file); --pins none turns pinning off for this endpoint")
        }
        if error is CancellationError { return HTTPError(.cancelled, endpoint: endpoint, reason: "the request was cancelled") }
        if let client = error as? HTTPClientError {
            if client == .deadlineExceeded || client == .readTimeout || client == .connectTimeout {
                return HTTPError(.timedOut, endpoint: endpoint, reason: "no answer within \(wait)", isRetryable: true)
            }
            if client == .cancelled { return HTTPError(.cancelled, endpoint: endpoint, reason: "the request was cancelled") }
        }
        if error is NIOTooManyBytesError {
            return HTTPError(.responseTooLarge, endpoint: endpoint, reason: "the answer is larger than the transport takes")
        }
        return HTTPError(.connectionFailed, endpoint: endpoint, reason: text, isRetryable: true)
    }

    /// The SHA-256 fingerprint of a certificate's DER bytes, as `openssl x509 -fingerprint -sha256` prints it.
    static func fingerprint(ofDER bytes: [UInt8]) -> String {
        SHA256Digest.hash(bytes).map { String(format: "%02X", $0) }.joined(separator: ":")
    }
}

/// The process's AsyncHTTPClient clients: one for real connections, one for each loopback redirect
/// a test asks for. They live as long as the process (AsyncHTTPClient requires a shutdown before a
/// client goes away, and a transport is a value that may be copied anywhere).
enum Clients {
    private static let made = Locked([[String: String]: HTTPClient]())

    static func client(connectingTo overrides: [String: String]) -> HTTPClient {
        made.withLock { made in
            if let client = made[overrides] { return client }
            var configuration = HTTPClient.Configuration()
            configuration.redirectConfiguration = .disallow
            configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(15))
            // A refused certificate fails the request at once, not after retries until its deadline.
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.dnsOverride = overrides
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            made[overrides] = client
            return client
        }
    }
}
