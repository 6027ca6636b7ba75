import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Facts about a model server's address.
enum Endpoint {
    /// Whether `url` points at this machine (localhost, 127.0.0.0/8, ::1), so pixels sent there stay on the device.
    static func isLoopback(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")) else { return false }
        return host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host.hasPrefix("127.")
    }

    /// A JSON POST request.
    static func post(_ url: URL, body: [String: Any], headers: [String: String] = [:], timeout: TimeInterval) -> URLRequest {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = ProviderReply.json(body)
        return request
    }

    /// A GET request.
    static func get(_ url: URL, headers: [String: String] = [:], timeout: TimeInterval) -> URLRequest {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "GET"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }
}
