/// Reports an upload's progress: the bytes of the body sent so far, and of the whole body.
public typealias HTTPProgress = @Sendable (_ sent: Int64, _ total: Int64) -> Void

/// How Memora talks HTTP: the caption generators, the sync client and the hub client send every
/// request through one of these. ``URLSessionTransport`` is the real one; tests wrap it to drop,
/// repeat, delay or inspect requests.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the answer, whatever its status; reports the body's progress to
    /// `progress` as it is sent. Throws when no usable answer came back.
    func send(_ request: HTTPRequest, progress: HTTPProgress?) async throws(HTTPError) -> HTTPResponse
}

extension HTTPTransport {
    /// Sends `request` and returns the answer, whatever its status.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try await send(request, progress: nil)
    }
}
