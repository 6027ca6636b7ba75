public import Foundation

/// A ``SyncServer`` running in this process, started by ``SyncServer/start()``: its port, and a way to
/// stop it. For demos, tests and embedding the server in another program.
public final class RunningSyncServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The server's address on the host it listens on.
    public let url: URL
    private let task: Task<Void, any Error>

    init(port: Int, host: String, task: Task<Void, any Error>) {
        self.port = port
        self.task = task
        let shown = host == "0.0.0.0" ? "127.0.0.1" : host
        url = URL(string: "http://\(shown):\(port)")!
    }

    /// Stops the server at once (open requests are cut) and waits until it has.
    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

extension SyncServer {
    /// Starts the server in a task and returns once it listens; `stop()` ends it. Signals do not stop it:
    /// the program that starts it decides when it ends.
    public func start() async throws(ServerError) -> RunningSyncServer {
        let ready = AsyncStream<Int>.makeStream()
        let task = Task {
            defer { ready.continuation.finish() }
            try await run(gracefulShutdown: false) { port in ready.continuation.yield(port) }
        }
        var iterator = ready.stream.makeAsyncIterator()
        guard let port = await iterator.next() else {
            let reason: String
            do {
                try await task.value
                reason = "it stopped before it listened"
            } catch let error as ServerError {
                throw error
            } catch {
                reason = "\(error)"
            }
            throw .storage("the server did not start on \(configuration.host):\(configuration.port): \(reason)")
        }
        return RunningSyncServer(port: port, host: configuration.host, task: task)
    }
}
