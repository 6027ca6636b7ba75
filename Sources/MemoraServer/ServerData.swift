internal import Foundation
internal import MemoraSystem
public import MemoraHub

/// A server's folder: `memora-server.sqlite` (unless the store is PostgreSQL), `objects/`, `hub/` (the
/// Memory Palace hub's media and thumbnails), `join-code` and `dashboard-key` (0600, made on first use).
public struct ServerData: Sendable {
    /// The store: SQLite in the folder, or PostgreSQL.
    public let store: any SyncStore
    /// Where the store is, for people: the SQLite file, or the PostgreSQL host and database.
    public let storeDescription: String
    /// The uploaded objects.
    public let objects: ObjectStore
    /// The join code devices register with.
    public let joinCode: String
    /// The Memory Palace hub's tables (in the same store) and files (`hub/` in the folder).
    let hub: HubStore
    let hubMedia: HubMedia
    /// The key that opens the dashboard from another machine (`/?key=…`; from this machine it opens without one).
    public let dashboardKey: String

    /// `$XDG_DATA_HOME/memora-server`.
    public static var defaultFolder: String { ApplicationFolders().data + "-server" }

    /// Opens (creating as needed) the server folder at `folder`, with its data in SQLite there or in
    /// the PostgreSQL database at `database` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`).
    public static func open(_ folder: String, database: String? = nil) async throws(ServerError) -> ServerData {
        do {
            try FileSystem.makeFolder(folder, permissions: 0o700)
        } catch {
            throw .storage("cannot create \(folder): \(error)")
        }
        // An existing folder too: it holds the secrets and the database. Best effort: a folder the
        // server may write to but does not own (a mounted volume) keeps its mode.
        try? FileSystem.setPermissions(folder, 0o700)
        let code = try secret(folder + "/join-code", bytes: 15)
        let dashboardKey = try secret(folder + "/dashboard-key", bytes: 24)
        let objects = try ObjectStore(folder: folder + "/objects")
        if let database {
            let store = try await PostgresSyncStore.connect(url: database)
            let place = URLComponents(string: database).map { "PostgreSQL \($0.host ?? "?")\($0.port.map { ":\($0)" } ?? "")\($0.path)" } ?? "PostgreSQL"
            return ServerData(store: store, storeDescription: place, objects: objects, joinCode: code,
                              hub: try await HubStore.open(store), hubMedia: try HubMedia(folder: folder + "/hub"), dashboardKey: dashboardKey)
        }
        let store = try SQLiteSyncStore(path: folder + "/memora-server.sqlite")
        return ServerData(store: store, storeDescription: "SQLite: \(store.path)", objects: objects, joinCode: code,
                          hub: try await HubStore.open(store), hubMedia: try HubMedia(folder: folder + "/hub"), dashboardKey: dashboardKey)
    }
}

extension ServerData {
    /// The secret kept in the file at `path` (0600), made on first use.
    static func secret(_ path: String, bytes: Int) throws(ServerError) -> String {
        let saved = (try? SystemFile(path).readAll()).map { String(decoding: $0, as: UTF8.self) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard saved.isEmpty else { return saved }
        let secret = ServerSecrets.randomToken(bytes: bytes)
        do {
            try AtomicFileWriter.write(Array((secret + "\n").utf8), to: path, options: .secret())
        } catch {
            throw .storage("cannot write \(path): \(error)")
        }
        return secret
    }

    /// A new pairing token for the hub's QR code: works once, for `lifetimeSeconds`. Only its hash is stored.
    public func pairingCode(host: String, port: Int, lifetimeSeconds: Int64 = 600, name: String? = "Memory Palace") async throws(ServerError) -> ServerConfig {
        let token = ServerSecrets.randomToken(bytes: 18)
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        try await hub.addPairingToken(hash: ServerSecrets.hash(token), expiresAt: now + lifetimeSeconds * 1000, now: now)
        return ServerConfig(serverIP: host, port: port, authToken: token, serverName: name, expiresAt: now + lifetimeSeconds * 1000)
    }
}
