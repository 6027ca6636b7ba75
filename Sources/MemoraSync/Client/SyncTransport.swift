public import Foundation
internal import MemoraSystem
#if canImport(FoundationNetworking)
internal import FoundationNetworking
#endif

/// An HTTP exchange of the sync client.
public struct SyncHTTPRequest: Sendable, Hashable {
    /// `GET`, `POST`, `PUT`, `HEAD`.
    public var method: String
    /// The full address.
    public var url: URL
    /// Headers (an `Authorization` header is secret: transports never log it).
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// Creates a request.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data = Data()) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The answer to a ``SyncHTTPRequest``.
public struct SyncHTTPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Headers, keyed by lower-cased name.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// How the sync client talks HTTP. ``URLSessionSyncTransport`` is the real one; tests wrap it to
/// drop, repeat, delay and reorder requests.
public protocol SyncTransport: Sendable {
    /// Sends a request; throws ``SyncError/connectionFailed(server:reason:)`` when no answer came.
    func send(_ request: SyncHTTPRequest) async throws(SyncError) -> SyncHTTPResponse
}

/// ``SyncTransport`` over Foundation's `URLSession`: no cookies, no cache.
public struct URLSessionSyncTransport: SyncTransport {
    let session: URLSession

    /// Creates a transport whose requests time out after `timeout` seconds.
    public init(timeout: TimeInterval = 60) {
        session = ApplicationFolders.withoutCookieFolder {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = timeout
            configuration.httpCookieStorage = nil
            configuration.urlCache = nil
            return URLSession(configuration: configuration)
        }
    }

    public func send(_ request: SyncHTTPRequest) async throws(SyncError) -> SyncHTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if !request.body.isEmpty, request.method != "GET", request.method != "HEAD" { urlRequest.httpBody = request.body }
        let server = "\(request.url.scheme ?? "http")://\(request.url.host ?? "?")\(request.url.port.map { ":\($0)" } ?? "")"
        do {
            let (data, response) = try await session.data(for: urlRequest)
            guard let http = response as? HTTPURLResponse else { throw SyncError.malformedResponse("not an HTTP answer") }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            return SyncHTTPResponse(status: http.statusCode, headers: headers, body: data)
        } catch let error as SyncError {
            throw error
        } catch {
            throw .connectionFailed(server: server, reason: (error as? URLError)?.localizedDescription ?? "\(error)")
        }
    }
}
