internal import Foundation
internal import MemoraDatabase
package import Hummingbird
internal import HummingbirdCore
internal import NIOCore
internal import Logging
internal import MemoraSync
internal import MemoraSystem

/// The Memora sync server: its routes (Docs/Sync.md, Docs/openapi.json) over a ``SyncStore``.
///
/// ```swift
/// let store = try await SyncStore.sqlite(path: folder + "/memora-server.sqlite")
/// let server = SyncServer(configuration: ServerConfiguration(joinCode: code), store: store, objects: objects)
/// try await server.run { port in print("listening on \(port)") }
/// ```
public struct SyncServer: Sendable {
    /// The version `GET /api/health` reports: the package's (`memora --version` says the same).
    public static let version = PackageVersion.string

    let configuration: ServerConfiguration
    let store: SyncStore
    let objects: ObjectStore
    let hub: (store: HubStore, media: HubMedia, dashboardKey: String, fleet: Fleet)?
    /// The server folder, where a running server records where it listens.
    let dataFolder: String?

    /// Creates a sync server over `store`, keeping uploaded objects in `objects` (no hub routes).
    public init(configuration: ServerConfiguration, store: SyncStore, objects: ObjectStore) {
        self.configuration = configuration
        self.store = store
        self.objects = objects
        hub = nil
        dataFolder = nil
    }

    /// Creates the server over a server folder's data: the sync routes and the Memory Palace hub's.
    public init(configuration: ServerConfiguration, data: ServerData) {
        self.configuration = configuration
        store = data.store
        objects = data.objects
        hub = (data.hub, data.hubMedia, data.dashboardKey, data.fleet)
        dataFolder = data.folder
    }

    /// Builds the router: every route, the rate limits, authentication and the error shape (for the
    /// package's tests and benchmarks; ``run(gracefulShutdown:onReady:)`` serves it).
    package func router() -> Router<ServerContext> {
        router(media: hub?.media)
    }

    /// The router, the hub's uploads staged through `media` (the running server's own `incoming/` folder).
    func router(media: HubMedia?) -> Router<ServerContext> {
        let router = Router(context: ServerContext.self)
        // Every middleware is a step of every request: the request log is there only when its lines are
        // written (`info`; the default, `notice`, writes none), the proxy's address rules only behind one.
        if configuration.logger.logLevel <= .info { router.add(middleware: RequestLogMiddleware()) }
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: HTTPRulesMiddleware())
        if !configuration.trustedProxies.isEmpty { router.add(middleware: ClientAddressMiddleware(trustedProxies: configuration.trustedProxies)) }
        router.add(middleware: IPRateLimitMiddleware(limiter: TokenBucketLimiter(burst: configuration.ipBurst, perSecond: configuration.ipPerSecond)))
        let authenticated = router.group("api")
            .add(middleware: DeviceAuthMiddleware(store: store, limiter: TokenBucketLimiter(burst: configuration.deviceBurst, perSecond: configuration.devicePerSecond),
                                                     clock: configuration.clock))
        let table = RouteTable(router: router, authenticated: authenticated)
        let routes = SyncRoutes(configuration: configuration, store: store, objects: objects)
        table.open(.get, "/api/health") { _, _ in
            ErrorMiddleware.json(HealthResponse(status: "ok", version: Self.version, storage: store.kind))
        }
        table.open(.post, "/api/devices/register") { request, context in try await routes.register(request, context: context) }
        table.device(.post, "/api/devices/refresh") { request, context in try await routes.refresh(request, context: context) }
        table.device(.post, "/api/sync/push") { request, context in try await routes.push(request, context: context) }
        table.device(.post, "/api/sync/pull") { request, context in try await routes.pull(request, context: context) }
        table.device(.get, "/api/preferences") { request, context in try await routes.preferences(request, context: context) }
        table.device(.put, "/api/preferences") { request, context in try await routes.putPreferences(request, context: context) }
        table.device(.post, "/api/errors/log") { request, context in try await routes.logError(request, context: context) }
        table.device(.put, "/api/objects/:sha256") { request, context in try await routes.putObject(request, context: context) }
        table.device(.head, "/api/objects/:sha256") { request, context in try await routes.headObject(request, context: context) }
        if let hub {
            let routes = HubRoutes(configuration: configuration, store: store, hub: hub.store, media: media ?? hub.media)
            table.open(.post, "/api/hub/pair") { request, context in try await routes.pair(request, context: context) }
            table.device(.get, "/api/people") { request, context in try await routes.people(request, context: context) }
            table.device(.post, "/api/people") { request, context in try await routes.addPerson(request, context: context) }
            table.device(.get, "/api/people/:id") { request, context in try await routes.person(request, context: context) }
            table.device(.put, "/api/people/:id") { request, context in try await routes.updatePerson(request, context: context) }
            table.device(.delete, "/api/people/:id") { request, context in try await routes.removePerson(request, context: context) }
            table.device(.get, "/api/people/:id/memories") { request, context in try await routes.memories(request, context: context) }
            table.device(.put, "/api/people/:id/avatar") { request, context in try await routes.setAvatar(request, context: context) }
            table.device(.get, "/api/people/:id/avatar") { request, context in try await routes.avatar(request, context: context) }
            table.device(.post, "/api/memories") { request, context in try await routes.addMemory(request, context: context) }
            table.device(.get, "/api/memories") { request, context in try await routes.memories(request, context: context) }
            table.device(.get, "/api/memories/:id") { request, context in try await routes.memory(request, context: context) }
            table.device(.delete, "/api/memories/:id") { request, context in try await routes.removeMemory(request, context: context) }
            table.device(.get, "/api/memories/:id/media") { request, context in try await routes.file(request, context: context, thumbnail: false) }
            table.device(.get, "/api/memories/:id/thumbnail") { request, context in try await routes.file(request, context: context, thumbnail: true) }
            table.device(.post, "/api/memories/:id/faces") { request, context in try await routes.addFaces(request, context: context) }
            table.device(.put, "/api/memories/:id/faces/:faceId") { request, context in try await routes.tagFace(request, context: context) }
            table.device(.get, "/api/faces/known") { request, context in try await routes.knownFaces(request, context: context) }
            table.device(.post, "/api/uploads") { request, context in try await routes.startUpload(request, context: context) }
            table.device(.get, "/api/uploads/:uploadId") { request, context in try await routes.uploadStatus(request, context: context) }
            table.device(.patch, "/api/uploads/:uploadId") { request, context in try await routes.continueUpload(request, context: context) }
            let dashboard = DashboardRoutes(configuration: configuration, hub: hub.store, media: media ?? hub.media, key: hub.dashboardKey, fleet: hub.fleet)
            table.open(.get, "/") { request, context in try await dashboard.home(request, context: context) }
            table.open(.post, "/dashboard/pair") { request, context in try await dashboard.pair(request, context: context) }
            table.open(.post, "/dashboard/logout") { request, context in try await dashboard.logout(request, context: context) }
            table.open(.get, "/people/:id") { request, context in try await dashboard.person(request, context: context) }
            table.open(.get, "/dashboard/thumbnails/:id") { request, context in try await dashboard.thumbnail(request, context: context) }
            table.open(.get, "/dashboard/avatars/:id") { request, context in try await dashboard.avatar(request, context: context) }
            table.open(.get, "/memories") { request, context in try await dashboard.memories(request, context: context) }
            table.open(.get, "/memories/:id") { request, context in try await dashboard.memory(request, context: context) }
            table.open(.post, "/memories/:id/edit") { request, context in try await dashboard.edit(request, context: context) }
            table.open(.post, "/memories/:id/undo") { request, context in try await dashboard.undo(request, context: context) }
            table.open(.get, "/memories/:id/delete") { request, context in try await dashboard.confirmDeletion(request, context: context) }
            table.open(.post, "/memories/:id/delete") { request, context in try await dashboard.delete(request, context: context) }
            table.open(.get, "/dashboard/media/:id") { request, context in try await dashboard.media(request, context: context) }
        }
        table.answerOtherMethods()
        return router
    }

    /// Runs the server until the task is cancelled or the process gets SIGINT/SIGTERM; `onReady`
    /// gets the port it listens on. A server over a folder (``init(configuration:data:)``) records there
    /// where it listens while it runs (``ServerData/hubAddress(host:port:)`` reads it).
    public func run(gracefulShutdown: Bool = true, onReady: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let logger = configuration.logger
        let folder = dataFolder, host = configuration.host
        let lock = folder.flatMap(ServerData.runningLock)
        defer { if let folder, let lock { ServerData.forgetListening(folder: folder, lock: lock) } }
        // The hub's uploads are staged in this run's own folder, under a lease the other servers on
        // the database respect: none of them clears it while this one runs.
        let lease = try await hubLease()
        let app = Application(
            router: router(media: lease?.media),
            server: .http1(configuration: HTTP1Channel.Configuration(additionalChannelHandlers: [RequestTargetHandler.Installer()],
                                                                     idleTimeout: TimeAmount.milliseconds(max(100, configuration.idleTimeout.wholeMilliseconds)))),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "memora-server"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                if let folder, lock != nil { ServerData.recordListening(folder: folder, host: host, port: port) }
                await onReady(port)
            },
            logger: logger)
        let maintenance = Task {
            while !Task.isCancelled {
                _ = try? await maintain(now: configuration.clock.milliseconds())
                try? await Task.sleep(for: .seconds(3600))
            }
        }
        defer { maintenance.cancel() }
        do {
            if gracefulShutdown {
                try await app.runService()
            } else {
                try await app.runService(gracefulShutdownSignals: [])
            }
            await lease?.end()
        } catch let error as IOError where NetworkAddress.isAddressInUse(error.errnoCode) {
            await lease?.end()
            throw ServerError.cannotListen("port \(configuration.port) on \(configuration.host) is in use by another program (another memora-server?): "
                                           + "stop it, or choose another port with --port")
        } catch let error as IOError {
            await lease?.end()
            throw ServerError.cannotListen("cannot listen on \(configuration.host):\(configuration.port): \(error.description)")
        } catch {
            await lease?.end()
            throw error
        }
    }
}

extension SyncServer {
    /// A running server's lease on its own `incoming/` folder: renewed while it runs, ended (and the
    /// folder removed) when it stops.
    struct HubLease: Sendable {
        let media: HubMedia
        let renewal: Task<Void, Never>
        let fleet: Fleet

        /// Ends the lease and removes the folder, even when the server's task was cancelled.
        func end() async {
            renewal.cancel()
            let (fleet, media) = (fleet, media)
            await Task {
                try? await fleet.releaseLease(media.server)
                try? FileSystem.removeTree(media.incoming)
            }.value
        }
    }

    /// Takes the lease, makes this run's `incoming/` folder and clears those of servers whose lease has
    /// ended; nil without a hub.
    func hubLease() async throws(ServerError) -> HubLease? {
        guard let hub else { return nil }
        let server = UUID().uuidString.lowercased(), fleet = hub.fleet
        let clock = configuration.clock
        try await fleet.holdLease(server, now: clock.milliseconds())
        let media = try hub.media.running(as: server)
        // The folders' own times are the disk's: the sweep compares them with the system's clock.
        _ = media.sweepIncoming(live: try await fleet.liveServers(now: clock.milliseconds()), before: Instant.now / 1000 - 3600)
        let renewal = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Fleet.leaseRenewal)
                guard !Task.isCancelled else { return }
                try? await fleet.holdLease(server, now: clock.milliseconds())
            }
        }
        return HubLease(media: media, renewal: renewal, fleet: fleet)
    }

    /// What one maintenance pass removed.
    public struct Maintenance: Sendable, Hashable {
        /// Tombstones past the retention period.
        public var tombstones: Int
        /// Uploaded objects no record referenced a day after their upload.
        public var orphanObjects: Int
        /// Hub files (media, thumbnails, avatars) no memory or person referred to an hour after they were written.
        public var orphanHubFiles: Int = 0
    }

    /// Removes tombstones older than the retention period (moving the horizon), objects no record
    /// references a day after upload, and the hub's files no row refers to an hour after they were
    /// written (what a crash between moving a file and writing its row leaves). The server runs it when
    /// it starts and every hour.
    public func maintain(now: Int64) async throws(ServerError) -> Maintenance {
        let tombstones = try await store.purgeTombstones(before: now.subtractingSaturating(configuration.tombstoneRetention.wholeMilliseconds))
        let orphans = try await store.removeOrphanObjects(before: now - 24 * 3600 * 1000)
        for hash in orphans { objects.remove(hash) }
        var orphanHubFiles = 0
        if let hub {
            for id in try await hub.store.removeExpiredUploadSessions(now: now) { try? FileSystem.remove(hub.media.sessionPath(id)) }
            let kept = try await hub.store.referencedFiles()
            orphanHubFiles = hub.media.sweep(media: kept.media, avatars: kept.avatars, before: now / 1000 - 3600)
            orphanHubFiles += hub.media.sweepIncoming(live: try await hub.fleet.liveServers(now: now), before: now / 1000 - 3600)
        }
        return Maintenance(tombstones: tombstones, orphanObjects: orphans.count, orphanHubFiles: orphanHubFiles)
    }
}
