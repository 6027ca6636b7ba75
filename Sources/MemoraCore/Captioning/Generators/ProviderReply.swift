import Foundation
internal import MemoraHTTP

/// Shared handling of provider replies: JSON bodies, error classification and
/// the servers' "retry after" hints.
enum ProviderReply {
    /// The JSON object in `reply`'s body, or a malformed-response error.
    static func object(_ reply: HTTPResponse, provider: String) throws(MemoraError) -> [String: Any] {
        guard let value = try? JSONSerialization.jsonObject(with: reply.body),
              let object = value as? [String: Any] else {
            throw .malformedResponse(provider: provider, reason: "the body is not a JSON object (\(reply.body.count) bytes, HTTP \(reply.status))")
        }
        return object
    }

    /// Encodes a request body.
    static func json(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// Throws the right ``MemoraError`` for a non-2xx reply; returns for 2xx.
    static func check(_ reply: HTTPResponse, provider: String) throws(MemoraError) {
        guard !(200..<300).contains(reply.status) else { return }
        let body = (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any]
        let error = body?["error"]
        let errorObject = error as? [String: Any]
        let message = (errorObject?["message"] as? String) ?? (error as? String)
            ?? String(decoding: reply.body.prefix(200), as: UTF8.self)
        let code = ((errorObject?["code"] as? String) ?? (errorObject?["type"] as? String) ?? "").lowercased()
        let status = (errorObject?["status"] as? String) ?? ""
        let retryAfter = retryDelay(reply, error: errorObject)
        let reasons = ((errorObject?["details"] as? [[String: Any]]) ?? []).compactMap { $0["reason"] as? String }
        if reasons.contains("API_KEY_INVALID") { throw .unauthorized(provider: provider, message: message) }
        switch reply.status {
        case 401, 403:
            throw .unauthorized(provider: provider, message: message)
        case 429:
            if code.contains("insufficient_quota") || isPerDayQuota(errorObject) {
                throw .quotaExhausted(provider: provider, message: message)
            }
            throw .rateLimited(provider: provider, retryAfter: retryAfter, message: message)
        case 408:
            throw .serverError(provider: provider, status: 408, retryAfter: retryAfter, message: message)
        case 500...599:
            throw .serverError(provider: provider, status: reply.status, retryAfter: retryAfter, message: message)
        default:
            if status == "RESOURCE_EXHAUSTED" { throw .quotaExhausted(provider: provider, message: message) }
            throw .rejected(provider: provider, status: reply.status, message: message)
        }
    }

    /// The delay the server asked for: its headers (``HTTPResponse/retryAfter(now:)``: `retry-after-ms`,
    /// then `Retry-After`), then Gemini's `google.rpc.RetryInfo` detail; at most a day.
    static func retryDelay(_ reply: HTTPResponse, error: [String: Any]?, now: Date = Date()) -> Duration? {
        if let wait = reply.retryAfter(now: now) { return wait }
        for detail in (error?["details"] as? [[String: Any]]) ?? [] {
            guard (detail["@type"] as? String)?.hasSuffix("google.rpc.RetryInfo") == true,
                  let delay = detail["retryDelay"] as? String else { continue }
            // A protobuf Duration in JSON: "37s" or "1.5s".
            if delay.hasSuffix("s"), let seconds = Double(delay.dropLast()), seconds >= 0 {
                return .seconds(min(seconds, HTTPResponse.longestRetryAfter / .seconds(1)))
            }
        }
        return nil
    }

    /// Gemini's quota failures name the quota: a per-day one will not reset by retrying today.
    static func isPerDayQuota(_ error: [String: Any]?) -> Bool {
        for detail in (error?["details"] as? [[String: Any]]) ?? [] {
            guard (detail["@type"] as? String)?.hasSuffix("google.rpc.QuotaFailure") == true else { continue }
            for violation in (detail["violations"] as? [[String: Any]]) ?? [] {
                let id = ((violation["quotaId"] as? String) ?? "") + ((violation["quotaMetric"] as? String) ?? "")
                if id.lowercased().contains("perday") { return true }
            }
        }
        return false
    }

    /// Turns model text into a caption, or throws ``MemoraError/emptyCaption(provider:)``.
    static func caption(from text: String, model: ModelInfo) throws(MemoraError) -> GeneratedCaption {
        guard let (description, altText) = CaptionPostProcessor.process(text) else {
            throw .emptyCaption(provider: model.displayName)
        }
        // What the alt text leaves out is the extended description: the whole description.
        return GeneratedCaption(description: description, altText: altText, model: model, rawText: text,
                                extendedDescription: altText == description ? nil : description)
    }
}
