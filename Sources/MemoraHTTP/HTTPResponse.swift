public import Foundation

/// The answer to an ``HTTPRequest``: status, headers (names lower-cased) and body.
public struct HTTPResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// The headers, keyed by lower-cased name.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// A response.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

extension HTTPResponse {
    /// The longest wait a server's answer is taken at: a day. A larger `Retry-After` is read as a day.
    public static let longestRetryAfter = Duration.seconds(86_400)

    /// How long the server asked to wait before trying again: `retry-after-ms`, then `Retry-After`
    /// in seconds or as an HTTP date (against `now`); at most ``longestRetryAfter``, nil when it did
    /// not say or said something that is not a wait.
    public func retryAfter(now: Date = Date()) -> Duration? {
        let longest = Self.longestRetryAfter / .seconds(1)
        if let value = headers["retry-after-ms"], let milliseconds = Double(value.trimmingCharacters(in: .whitespaces)), milliseconds >= 0 {
            return .seconds(min(milliseconds / 1000, longest))
        }
        guard let value = headers["retry-after"]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value), seconds >= 0 { return .seconds(min(seconds, longest)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .seconds(min(max(0, date.timeIntervalSince(now)), longest))
    }

    /// The server's error, when the body is Memora's (``APIErrorBody``).
    public var apiError: APIError? {
        try? JSONDecoder().decode(APIErrorBody.self, from: body).error
    }
}
