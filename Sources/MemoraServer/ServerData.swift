internal import Foundation
internal import MemoraDatabase
internal import MemoraSystem
public import MemoraHub

/// A server's folder: `memora-server.sqlite` (unless the store is PostgreSQL), `objects/` and `hub/` (the
/// Memory Palace hub's media and thumbnails), `fleet-folder` (on PostgreSQL: the mark that tells the
/// fleet's folder from another) and, while a server runs on it, `listening` (where it listens) and
/// `running.lock`. The join code and the dashboard key are in the database (`server_secrets`), so every
/// server on one database has the same ones.
public struct ServerData: Sendable {
    /// The store: SQLite in the folder, or PostgreSQL.
    public let store: SyncStore
    /// Where the store is, for people: the SQLite file, or the PostgreSQL host and database.
    public let storeDescription: String
    /// The uploaded objects.
    public let objects: ObjectStore
    /// The join code devices register with (as it was when the folder was opened).
    public let joinCode: String
    /// The Memory Palace hub's tables (in the same store) and files (`hub/` in the folder).
    let hub: HubStore
    let hubMedia: HubMedia
    /// What the servers on this database share: secrets and leases.
    let fleet: Fleet
    /// The key that opens the dashboard (`/?key=…`), from this machine too.
    public let dashboardKey: String
    /// The folder.
    public let folder: String

    /// `$XDG_DATA_HOME/memora-server`.
    public static var defaultFolder: String { ApplicationFolders().data + "-server" }

    /// Opens (creating as needed) the server folder at `folder`, with its data in SQLite there or in
    /// the PostgreSQL database at `database` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`).
    /// Several servers may open one folder and database at once: they get the same secrets. On
    /// PostgreSQL, a folder other than the one the database's servers share is refused
    /// (``ServerError/Code/fleetMismatch``).
    public static func open(_ folder: String, database: String? = nil) async throws(ServerError) -> ServerData {
        do {
            try FileSystem.makeFolder(folder, permissions: 0o700)
        } catch {
            throw .storage("cannot create \(folder): \(error)")
        }
        // An existing folder too: it holds the uploads and the database. Best effort: a folder the
        // server may write to but does not own (a mounted volume) keeps its mode.
        try? FileSystem.setPermissions(folder, 0o700)
        let store = if let database { try await SyncStore.postgres(url: database) } else { try await SyncStore.sqlite(path: folder + "/memora-server.sqlite") }
        let fleet = try await Fleet.open(store.database)
        if database != nil { try await fleet.claim(folder: folder) }
        let code = try await secret(Fleet.joinCodeName, bytes: 15, fleet: fleet, folder: folder)
        let dashboardKey = try await secret(Fleet.dashboardKeyName, bytes: 24, fleet: fleet, folder: folder)
        let objects = try ObjectStore(folder: folder + "/objects")
        return ServerData(store: store, storeDescription: store.location, objects: objects, joinCode: code,
                          hub: try await HubStore.open(store.database), hubMedia: try HubMedia(folder: folder + "/hub"), fleet: fleet,
                          dashboardKey: dashboardKey, folder: folder)
    }
}

extension ServerData {
    /// The fleet's secret `name`, made on first use: an earlier release's file of that name in the
    /// folder (0600) when there is one, a new random one otherwise. The file goes once the database
    /// holds the secret, so no copy is left to go stale.
    static func secret(_ name: String, bytes: Int, fleet: Fleet, folder: String) async throws(ServerError) -> String {
        let file = folder + "/" + name
        let saved = (try? SystemFile(file).readAll()).map { String(decoding: $0, as: UTF8.self) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let secret = try await fleet.secret(name, proposed: saved.isEmpty ? ServerSecrets.randomToken(bytes: bytes) : saved)
        if FileSystem.exists(file) { try? FileSystem.remove(file) }
        return secret
    }

    /// Replaces the join code with a new random one for every server on the database, and returns it.
    /// Devices registered already keep their tokens; a new device needs the new code. A running server
    /// takes it when it starts again.
    public func rotateJoinCode() async throws(ServerError) -> String {
        let code = ServerSecrets.randomToken(bytes: 15)
        try await fleet.replaceSecret(Fleet.joinCodeName, with: code)
        return code
    }

    /// Replaces the dashboard key with a new random one for every server on the database and returns
    /// it, and ends every dashboard session at once: a browser must open the address with the new key.
    /// Running servers read the key from the database at each check, so the old one stops at once.
    public func rotateDashboardKey() async throws(ServerError) -> String {
        let key = ServerSecrets.randomToken(bytes: 24)
        try await fleet.replaceSecret(Fleet.dashboardKeyName, with: key)
        try await hub.removeDashboardSessions(tokenHash: nil)
        return key
    }

    /// Takes a lease for the server `id` until `now` (milliseconds since 1970) plus the lease's length,
    /// as a running server does: for tests of a server that stopped without ending its lease.
    package func holdLease(forServer id: String, now: Int64) async throws(ServerError) {
        try await fleet.holdLease(id, now: now)
    }

    /// A new dashboard session for the current key, as opening the address with `?key=` makes one: the
    /// token its cookie holds (tests and the demo's browser).
    package func newDashboardSession() async throws(ServerError) -> String {
        try await hub.openDashboardSession(key: dashboardKey, now: Instant.now, lifetime: DashboardRoutes.sessionLifetime)
    }

    /// A new pairing token for the hub's QR code: works once, for `lifetimeSeconds`. Only its hash is stored.
    public func pairingCode(host: String, port: Int, lifetimeSeconds: Int64 = 600, name: String? = "Memory Palace") async throws(ServerError) -> PairingCode {
        try await hub.newPairingCode(host: host, port: port, lifetimeSeconds: lifetimeSeconds, name: name)
    }
}

extension ServerData {
    /// Where a server running on this folder listens, as it recorded when it started.
    struct Listening: Codable, Sendable {
        var host: String
        var port: Int
    }

    /// Takes the folder's running lock, held while a server runs on it; nil when another server holds it.
    static func runningLock(folder: String) -> FileLock? {
        try? FileLock(folder + "/running.lock", .exclusive, wait: false)
    }

    /// Records where the server that holds the running lock listens (best effort).
    static func recordListening(folder: String, host: String, port: Int) {
        guard let bytes = try? JSONEncoder().encode(Listening(host: host, port: port)) else { return }
        try? AtomicFileWriter.write(Array(bytes), to: folder + "/listening", options: .secret())
    }

    /// Removes the record ``recordListening(folder:host:port:)`` wrote, and releases the running lock.
    static func forgetListening(folder: String, lock: FileLock) {
        try? FileSystem.remove(folder + "/listening")
        lock.unlock()
    }

    /// Where the server running on this folder listens, or nil when none runs (its lock is free).
    var listening: Listening? {
        guard FileSystem.exists(folder + "/listening") else { return nil }
        if (try? FileLock(folder + "/running.lock", .shared, wait: false)) != nil { return nil }  // free: no server holds it
        guard let bytes = try? SystemFile(folder + "/listening").readAll() else { return nil }
        return try? JSONDecoder().decode(Listening.self, from: Data(bytes))
    }

    /// Whether a server runs on this folder now.
    public var isServerRunning: Bool { listening != nil }

    /// The address devices and browsers reach this folder's hub at: `host` and `port` when given, else
    /// where the running server listens (its private network address when it listens on every
    /// network), else this machine's private network address and port 8787, saying the hub is not running.
    public func hubAddress(host: String? = nil, port: Int? = nil) -> HubAddress {
        let running = listening
        let port = port ?? running?.port ?? 8787
        if let host { return HubAddress(host: host, port: port, reason: "the address given") }
        if let running { return HubAddress.reaching(listeningOn: running.host, port: port) }
        let guess = HubAddress.reaching(listeningOn: "0.0.0.0", port: port)
        return HubAddress(host: guess.host, port: port, reason: "no memora-server is running on \(folder): start it (memora-server --host 0.0.0.0 --data \(folder)); "
                          + "until then this guesses \(guess.reason)")
    }
}
