public import Foundation
public import MemoraServer
internal import MemoraSystem

/// A real memora-server in this process on 127.0.0.1, for tests and benchmarks: started on a free port,
/// restartable on the same port and data (a server restart), stopped by ``stop()``. Its rate limits are
/// effectively off unless `configure` sets them.
public final class LoopbackSyncServer: Sendable {
    /// The server's folder (its SQLite database, objects and join code).
    public let folder: String
    /// The PostgreSQL database the server keeps its data in; nil for SQLite in ``folder``.
    public let database: String?
    /// The code devices register with.
    public let joinCode: String
    private let configure: @Sendable (inout ServerConfiguration) -> Void
    private let running = Locked<RunningSyncServer?>(nil)

    /// Starts a server with its data in `folder` (SQLite) or `database` (a PostgreSQL URL), devices
    /// joining with `joinCode`; `configure` adjusts the configuration (limits) before each start.
    public init(folder: String, database: String? = nil, joinCode: String = "loopback-join-code-0123456789",
                configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }) async throws {
        self.folder = folder
        self.database = database
        self.joinCode = joinCode
        self.configure = configure
        try await start(port: 0)
    }

    /// The port the server listens on (0 while stopped).
    public var port: Int { running.withLock { $0?.port ?? 0 } }
    /// The server's address.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private func start(port: Int) async throws {
        let data = try await ServerData.open(folder, database: database)
        var configuration = ServerConfiguration(joinCode: joinCode)
        configuration.port = port
        configuration.logger.logLevel = .critical  // stopping by cancellation logs errors of its own
        (configuration.ipBurst, configuration.ipPerSecond) = (1_000_000, 1_000_000)
        (configuration.deviceBurst, configuration.devicePerSecond) = (1_000_000, 1_000_000)
        configure(&configuration)
        // A restart takes the same port again: an outgoing connection of another test may hold that
        // number for a moment (it is in the ephemeral range), so binding is tried again for a while.
        var attempt = 0
        while true {
            do {
                let server = try await SyncServer(configuration: configuration, data: data).start()
                running.withLock { $0 = server }
                return
            } catch {
                attempt += 1
                guard port != 0, attempt < 100, "\(error)".contains("in use") else { throw error }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Stops the server (open requests are cut).
    public func stop() async {
        await running.withLock { $0 }?.stop()
    }

    /// Stops the server and starts it again on the same port and data.
    public func restart() async throws {
        let port = self.port
        await stop()
        try await start(port: port)
    }

    /// This server as one of a ``ConvergenceSimulation``'s servers.
    public var simulationServer: ConvergenceSimulation.Server {
        ConvergenceSimulation.Server(url: { self.url }, restart: { try await self.restart() })
    }
}
