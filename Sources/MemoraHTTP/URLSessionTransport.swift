internal import Foundation
internal import MemoraSystem
#if canImport(FoundationNetworking)
internal import FoundationNetworking
#endif

/// ``HTTPTransport`` over Foundation's `URLSession` (libcurl on Linux): no cookies, no cache, an
/// answer's size bounded, upload progress and cancellation for every request.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let exchanges: Exchanges
    private let timeout: Duration

    /// A transport that waits `timeout` for the next bytes of an answer and refuses answers larger
    /// than `maximumResponseBytes`. A request's own shorter ``HTTPRequest/timeout`` wins; a longer
    /// one is kept on Apple platforms, while URLSession on Linux stops at four times the
    /// transport's: make the transport's timeout the longest its requests need.
    ///
    /// A watchdog task holds each request to its timeout, counting only the silence this process
    /// was free to hear: while its threads are all held by other work, an answer may be waiting
    /// unread, and the server is not blamed. URLSession's own timer, which runs on the wall clock,
    /// is set four times longer, as a backstop.
    public init(timeout: Duration = .seconds(60), maximumResponseBytes: Int = 64 << 20) {
        self.timeout = timeout
        let exchanges = Exchanges(limit: maximumResponseBytes)
        self.exchanges = exchanges
        session = ApplicationFolders.withoutCookieFolder {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = Self.seconds(timeout * Self.backstop)
            configuration.httpCookieStorage = nil
            configuration.urlCache = nil
            return URLSession(configuration: configuration, delegate: exchanges, delegateQueue: nil)
        }
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: HTTPRequest, progress: HTTPProgress?) async throws(HTTPError) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: Self.seconds((request.timeout ?? timeout) * Self.backstop))
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let sendsBody = !request.body.isEmpty && request.method != "GET" && request.method != "HEAD"
        let task = sendsBody ? session.uploadTask(with: urlRequest, from: request.body) : session.dataTask(with: urlRequest)
        let endpoint = request.redactedURL
        let wait = request.timeout ?? timeout
        // URLSession on Linux keeps the session's timeout whatever the request says: a watchdog holds
        // each request to its own, measured from the last bytes that went either way.
        let exchanges = exchanges
        let tick = min(wait / 4, .milliseconds(250))
        let watchdog = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                if exchanges.expire(task, after: wait, tick: tick) { return }
            }
        }
        defer { watchdog.cancel() }
        let result: Result<HTTPResponse, HTTPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchanges.begin(task, endpoint: endpoint, progress: progress, continuation: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        return try result.get()
    }

    static func seconds(_ duration: Duration) -> TimeInterval { duration / .seconds(1) }

    /// How many times a request's timeout URLSession's wall-clock timer waits: the watchdog, which
    /// does not blame the server for this process's own delays, decides first.
    static let backstop = 4
}

/// The session's delegate: follows each task's progress, collects its answer and ends it.
private final class Exchanges: NSObject, URLSessionDataDelegate, Sendable {
    struct Exchange {
        var endpoint: String
        var progress: HTTPProgress?
        var continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>
        var body = Data()
        var tooLarge = false
        var timedOut = false
        /// How long the server has been silent, as the watchdog counted it.
        var silence = Duration.zero
        var lastCheck = ContinuousClock.now

        /// Bytes went one way or the other: the silence starts again.
        mutating func heard() {
            silence = .zero
            lastCheck = .now
        }
    }

    let limit: Int
    private let running = Locked([Int: Exchange]())

    init(limit: Int) { self.limit = limit }

    func begin(_ task: URLSessionTask, endpoint: String, progress: HTTPProgress?,
               continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) {
        running.withLock { $0[task.taskIdentifier] = Exchange(endpoint: endpoint, progress: progress, continuation: continuation) }
    }

    /// Cancels `task` as timed out when nothing went either way for `wait`; true when the task is
    /// over (timed out now, or finished), so the watchdog can stop. Each check counts at most two
    /// ticks of silence: when this process is too busy to run the watchdog on time (its threads
    /// held by other work), the answer may be waiting unread here, and the server is not blamed.
    func expire(_ task: URLSessionTask, after wait: Duration, tick: Duration) -> Bool {
        let expired = running.withLock { running -> Bool? in
            guard var exchange = running[task.taskIdentifier] else { return nil }
            let now = ContinuousClock.now
            exchange.silence += min(now - exchange.lastCheck, tick * 2)
            exchange.lastCheck = now
            exchange.timedOut = exchange.silence >= wait
            running[task.taskIdentifier] = exchange
            return exchange.timedOut
        }
        if expired == true { task.cancel() }
        // Not in the table: not begun yet, or finished.
        return expired ?? (task.state == .completed)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        let progress = running.withLock { running -> HTTPProgress? in
            running[task.taskIdentifier]?.heard()
            return running[task.taskIdentifier]?.progress
        }
        progress?(totalBytesSent, totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overflow = running.withLock { running -> Bool in
            // Fields only, never a copy of the exchange: a copy would share the body, and appending
            // would then copy it whole.
            let id = dataTask.taskIdentifier
            guard let tooLarge = running[id]?.tooLarge, !tooLarge, let received = running[id]?.body.count else { return false }
            running[id]?.heard()
            if received + data.count > limit {
                running[id]?.tooLarge = true
                running[id]?.body = Data()
                return true
            }
            running[id]?.body.append(data)
            return false
        }
        if overflow { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = running.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let result: Result<HTTPResponse, HTTPError>
        if exchange.timedOut {
            result = .failure(HTTPError(.timedOut, endpoint: exchange.endpoint, reason: "no answer within the timeout", isRetryable: true))
        } else if exchange.tooLarge {
            result = .failure(HTTPError(.responseTooLarge, endpoint: exchange.endpoint, reason: "the answer is larger than \(limit) bytes"))
        } else if let error {
            result = .failure(Self.failure(error, endpoint: exchange.endpoint))
        } else if let http = task.response as? HTTPURLResponse {
            if task.countOfBytesSent > 0 { exchange.progress?(task.countOfBytesSent, task.countOfBytesSent) }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            result = .success(HTTPResponse(status: http.statusCode, headers: headers, body: exchange.body))
        } else {
            result = .failure(HTTPError(.malformedResponse, endpoint: exchange.endpoint, reason: "not an HTTP answer"))
        }
        exchange.continuation.resume(returning: result)
    }

    static func failure(_ error: any Error, endpoint: String) -> HTTPError {
        guard let error = error as? URLError else {
            return HTTPError(.connectionFailed, endpoint: endpoint, reason: "\(error)", isRetryable: true)
        }
        switch error.code {
        case .timedOut: return HTTPError(.timedOut, endpoint: endpoint, reason: "no answer within the timeout", isRetryable: true)
        case .cancelled: return HTTPError(.cancelled, endpoint: endpoint, reason: "the request was cancelled")
        default: return HTTPError(.connectionFailed, endpoint: endpoint, reason: error.localizedDescription, isRetryable: true)
        }
    }
}
