internal import Foundation
internal import MemoraSync
internal import MemoraSystem
#if canImport(FoundationNetworking)
internal import FoundationNetworking
#endif

/// One upload of a body through `URLSession`, with progress and cancellation.
enum UploadTask {
    static func run(_ request: URLRequest, body: Data, progress: (@Sendable (Int64, Int64) -> Void)?) async throws(HubError) -> SyncHTTPResponse {
        let host = "\(request.url?.host ?? "?")\(request.url?.port.map { ":\($0)" } ?? "")"
        let delegate = UploadDelegate(host: host, progress: progress)
        let session = ApplicationFolders.withoutCookieFolder {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 300
            configuration.httpCookieStorage = nil
            configuration.urlCache = nil
            return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        }
        defer { session.finishTasksAndInvalidate() }
        let result: Result<SyncHTTPResponse, HubError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                delegate.start(continuation)
                let task = session.uploadTask(with: request, from: body)
                delegate.keep(task)
                task.resume()
            }
        } onCancel: {
            delegate.cancel()
        }
        return try result.get()
    }
}

/// Follows one upload: the bytes sent (progress), the answer's bytes, and its end.
private final class UploadDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<SyncHTTPResponse, HubError>, Never>?
        var task: URLSessionTask?
        var body = Data()
        var cancelled = false
    }

    let host: String
    let progress: (@Sendable (Int64, Int64) -> Void)?
    private let state = Locked(State())

    init(host: String, progress: (@Sendable (Int64, Int64) -> Void)?) {
        self.host = host
        self.progress = progress
    }

    func start(_ continuation: CheckedContinuation<Result<SyncHTTPResponse, HubError>, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func keep(_ task: URLSessionTask) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.task?.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        progress?(totalBytesSent, totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, body, cancelled) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.body, state.cancelled)
        }
        let result: Result<SyncHTTPResponse, HubError>
        if let error {
            result = .failure(.connectionFailed(host: host, reason: cancelled ? "the upload was cancelled" : error.localizedDescription))
        } else if let http = task.response as? HTTPURLResponse {
            if let total = Optional(task.countOfBytesSent), total > 0 { progress?(total, total) }
            result = .success(SyncHTTPResponse(status: http.statusCode, body: body))
        } else {
            result = .failure(.malformedResponse("not an HTTP answer"))
        }
        continuation?.resume(returning: result)
    }
}
