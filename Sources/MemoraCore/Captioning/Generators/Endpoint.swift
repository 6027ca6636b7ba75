import Foundation
internal import MemoraHTTP

/// Facts about a model server's address, and the requests the generators send it.
enum Endpoint {
    /// Whether `url` points at this machine (localhost, 127.0.0.0/8, ::1), so pixels sent there stay on the device.
    static func isLoopback(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")) else { return false }
        return host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host.hasPrefix("127.")
    }

    /// A JSON POST request.
    static func post(_ url: URL, body: [String: Any], headers: [String: String] = [:], timeout: Duration) -> HTTPRequest {
        HTTPRequest(method: "POST", url: url, headers: headers.merging(["Content-Type": "application/json"]) { mine, _ in mine },
                    body: ProviderReply.json(body), timeout: timeout)
    }

    /// The transport a generator sends through: `given`, or its own `URLSessionTransport` that waits
    /// as long as a caption may take, `timeout` (URLSession on Linux stops at the transport's timeout,
    /// whatever the request asks). Its own checks certificates as the system trusts them; a front end
    /// that pins the cloud endpoints' roots passes MemoraPinning's `PinnedTransport`, as `memora caption` does.
    static func transport(_ given: (any HTTPTransport)?, timeout: Duration) -> any HTTPTransport {
        given ?? URLSessionTransport(timeout: max(timeout, .seconds(1)))
    }

    /// A GET request.
    static func get(_ url: URL, headers: [String: String] = [:], timeout: Duration) -> HTTPRequest {
        HTTPRequest(method: "GET", url: url, headers: headers, timeout: timeout)
    }
}

extension HTTPTransport {
    /// Sends a generator's request; a failure to get an answer becomes MemoraCore's error
    /// with the transport's code (``MemoraError/http(_:timeout:)``).
    func exchange(_ request: HTTPRequest) async throws(MemoraError) -> HTTPResponse {
        do {
            return try await send(request)
        } catch {
            throw .http(error, timeout: request.timeout)
        }
    }
}
