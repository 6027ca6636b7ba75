public import Foundation
internal import MemoraSystem
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// An HTTP reply: status, headers (names lower-cased) and body.
public struct HTTPReply: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// The headers, keyed by lower-cased name.
    public var headers: [String: String]
    /// The body bytes.
    public var body: Data

    /// Creates a reply.
    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Sends HTTP requests for the caption generators. ``URLSessionTransport`` is the real one.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the reply, or throws ``MemoraError/connectionFailed(endpoint:reason:)``
    /// or ``MemoraError/timedOut(endpoint:seconds:)``.
    func send(_ request: URLRequest) async throws(MemoraError) -> HTTPReply
}

/// ``HTTPTransport`` over Foundation's `URLSession` (libcurl on Linux). No cookies, no cache, no proxy for loopback.
public struct URLSessionTransport: HTTPTransport {
    let session: URLSession

    /// Creates a transport whose requests time out after `timeout` seconds.
    public init(timeout: TimeInterval = 60) {
        session = ApplicationFolders.withoutCookieFolder {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = timeout
            configuration.timeoutIntervalForResource = timeout
            configuration.httpCookieStorage = nil
            configuration.urlCache = nil
            return URLSession(configuration: configuration)
        }
    }

    public func send(_ request: URLRequest) async throws(MemoraError) -> HTTPReply {
        let endpoint = Self.describe(request.url)
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                throw MemoraError.malformedResponse(provider: endpoint, reason: "not an HTTP response")
            }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            return HTTPReply(status: http.statusCode, headers: headers, body: data)
        } catch let error as MemoraError {
            throw error
        } catch let error as URLError {
            if error.code == .timedOut { throw .timedOut(endpoint: endpoint, seconds: request.timeoutInterval) }
            throw .connectionFailed(endpoint: endpoint, reason: error.localizedDescription)
        } catch {
            throw .connectionFailed(endpoint: endpoint, reason: MemoraError.reason(of: error))
        }
    }

    /// Scheme, host and path only: never a query string (which could hold a key).
    static func describe(_ url: URL?) -> String {
        guard let url, let host = url.host else { return "the server" }
        return "\(url.scheme ?? "http")://\(host)\(url.port.map { ":\($0)" } ?? "")\(url.path)"
    }
}
