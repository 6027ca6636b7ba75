import Foundation
import MemoraHTTP
import MemoraHub
import MemoraSync
import MemoraSystem
import Testing

/// The sync client and the hub client read a failed request the same way (one ``APIClient``): the
/// transport's code kept, a 429 retryable with its wait, a 5xx retryable, a refusal not.
@Suite("Client errors")
struct ClientErrorTests {
    private static func answer(_ status: Int, retryAfter: String? = nil, code: String = "some_code") -> HTTPError {
        let body = try! JSONEncoder().encode(APIErrorBody(error: APIError(code: code, message: "the server says so")))
        let response = HTTPResponse(status: status, headers: retryAfter.map { ["retry-after": $0] } ?? [:], body: body)
        return .unexpected(response, endpoint: "http://hub.local:8080/api/people")
    }

    private static func noAnswer(_ code: HTTPError.Code, retryable: Bool) -> HTTPError {
        HTTPError(code, endpoint: "http://hub.local:8080/api/people", reason: "what the transport said", isRetryable: retryable)
    }

    @Test("a 429 is rate-limited and retryable after the server's wait, in both")
    func rateLimited() {
        let sync = SyncError.http(Self.answer(429, retryAfter: "3"))
        let hub = HubError.http(Self.answer(429, retryAfter: "3"))
        #expect(sync.code == .rateLimited && hub.code == .rateLimited)
        #expect(sync.isRetryable && hub.isRetryable)
        #expect(sync.retryAfter == .seconds(3) && hub.retryAfter == .seconds(3))
        #expect(sync.status == 429 && hub.status == 429)
        // A 429 without Retry-After still waits a second, not nothing.
        #expect(SyncError.http(Self.answer(429)).retryAfter == .seconds(1) && HubError.http(Self.answer(429)).retryAfter == .seconds(1))
    }

    @Test("no answer keeps the transport's code and retryability, in both")
    func transportCodes() {
        let cases: [(HTTPError.Code, Bool)] = [(.connectionFailed, true), (.timedOut, true), (.cancelled, false), (.untrustedCertificate, false)]
        for (code, retryable) in cases {
            let sync = SyncError.http(Self.noAnswer(code, retryable: retryable))
            let hub = HubError.http(Self.noAnswer(code, retryable: retryable))
            #expect(sync.code.rawValue == code.rawValue && hub.code.rawValue == code.rawValue, "\(code): \(sync.code), \(hub.code)")
            #expect(sync.isRetryable == retryable && hub.isRetryable == retryable, "\(code)")
            #expect(sync.code == SyncError.Code(code) && hub.code == HubError.Code(code))
        }
        #expect(SyncError.http(Self.noAnswer(.cancelled, retryable: false)).code == .cancelled)
        #expect(HubError.http(Self.noAnswer(.timedOut, retryable: true)).code == .timedOut)
    }

    @Test("a 5xx is a retryable server error that keeps its wait; a 400 or 404 is not retryable")
    func serverAndRefusals() {
        let sync = SyncError.http(Self.answer(503, retryAfter: "20"))
        let hub = HubError.http(Self.answer(503, retryAfter: "20"))
        #expect(sync.code == .serverError && hub.code == .serverError)
        #expect(sync.isRetryable && hub.isRetryable)
        #expect(sync.retryAfter == .seconds(20) && hub.retryAfter == .seconds(20))
        #expect(sync.apiError?.code == "some_code" && hub.serverCode == "some_code")
        for status in [400, 404, 409] {
            #expect(!SyncError.http(Self.answer(status)).isRetryable && !HubError.http(Self.answer(status)).isRetryable, "\(status)")
        }
        #expect(SyncError.http(Self.answer(401)).code == .unauthorized && HubError.http(Self.answer(401)).code == .unauthorized)
        #expect(SyncError.http(Self.answer(403, code: "revoked")).code == .revoked)
        #expect(HubError.http(Self.answer(404)).code == .notFound)
    }

    @Test("every module error is a CodedError: code, message, retryability and wait read the same way")
    func oneShape() {
        let errors: [any CodedError] = [SyncError.http(Self.answer(429, retryAfter: "3")), HubError.http(Self.answer(429, retryAfter: "3")),
                                        Self.answer(429, retryAfter: "3")]
        for error in errors {
            #expect(error.isRetryable && error.retryAfter == .seconds(3), "\(type(of: error))")
            #expect(error.description == error.message && !error.message.isEmpty)
        }
    }
}
