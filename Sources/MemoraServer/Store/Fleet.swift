internal import Foundation
internal import MemoraSystem

/// What every memora-server on one database shares, kept in that database so that servers starting
/// together agree on it (Docs/Sync.md, "A fleet"):
/// - `server_secrets`: the join code, the dashboard key and the mark of the data folder the fleet
///   shares, each made once by whichever server asks first (`INSERT … ON CONFLICT DO NOTHING`, then
///   read back in the same transaction);
/// - `server_leases`: the servers running now, each renewing its lease while it runs, so that a
///   server clears only the half-received uploads of a server whose lease has ended.
struct Fleet: Sendable {
    let database: any SQLDatabase

    /// How long a running server's lease lasts, in milliseconds (10 minutes: a server whose clock is a
    /// few minutes off its peers' still keeps its lease); it renews it every ``leaseRenewal``.
    static let leaseMilliseconds: Int64 = 600_000
    /// How often a running server renews its lease.
    static let leaseRenewal: Duration = .seconds(60)
    /// The secrets' names in `server_secrets`.
    static let joinCodeName = "join-code", dashboardKeyName = "dashboard-key", folderMarkName = "folder-mark"
    /// The file in the data folder that holds the folder's mark.
    static let folderMarkFile = "fleet-folder"

    /// Creates the tables when missing (on PostgreSQL under the advisory lock the hub's tables take too,
    /// so servers starting together do not race).
    static func open(_ database: any SQLDatabase) async throws(ServerError) -> Fleet {
        let postgres = database.dialect == .postgres
        var statements = postgres ? [SQLStatement("SELECT pg_advisory_xact_lock(724562020)")] : []
        statements += [
            SQLStatement("CREATE TABLE IF NOT EXISTS server_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL)"),
            SQLStatement("CREATE TABLE IF NOT EXISTS server_leases (server_id TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)"),
        ]
        _ = try await database.run(statements)
        return Fleet(database: database)
    }

    // MARK: Secrets

    /// The secret called `name`: the one the database holds, or `proposed` when it held none (stored
    /// now). However many servers ask at once, they all get the same value.
    func secret(_ name: String, proposed: String) async throws(ServerError) -> String {
        let results = try await database.run([
            SQLStatement("INSERT INTO server_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", [.text(name), .text(proposed)]),
            SQLStatement("SELECT value FROM server_secrets WHERE name = ?", [.text(name)]),
        ])
        guard let value = try results.last?.first?.only(as: String.self), !value.isEmpty else {
            throw .storage("the database holds no \(name) after storing one: check the database (server_secrets)")
        }
        return value
    }

    /// The secret called `name`, or nil when none was made yet. A read beside SQLite's one writer: the
    /// dashboard asks at each request.
    func existingSecret(_ name: String) async throws(ServerError) -> String? {
        try await database.value("SELECT value FROM server_secrets WHERE name = ?", [.text(name)], as: String.self)
    }

    /// Replaces the secret called `name` with `value` for the whole fleet.
    func replaceSecret(_ name: String, with value: String) async throws(ServerError) {
        _ = try await database.run([SQLStatement(
            "INSERT INTO server_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value", [.text(name), .text(value)])])
    }

    // MARK: The shared folder

    /// Checks that `folder` is the fleet's data folder (PostgreSQL: on SQLite the database is in the
    /// folder, so there is no other): the mark in its `fleet-folder` file (made once, by whichever
    /// server writes it first) must be the one the database holds. A server on another folder (its
    /// own, not shared with the fleet) is refused: the uploads it received would be missing from every
    /// other server's folder.
    func claim(folder: String) async throws(ServerError) {
        let path = folder + "/" + Self.folderMarkFile
        var mark = Self.readMark(path)
        if mark == nil {
            // Created, never replaced: of servers starting together on one fresh folder, one writes it
            // and the others read what it wrote.
            try? AtomicFileWriter.write(Array((ServerSecrets.randomToken(bytes: 16) + "\n").utf8), to: path,
                                        options: AtomicFileWriter.Options(permissions: .exactly(0o600), replacesExisting: false))
            mark = Self.readMark(path)
        }
        guard let mark else { throw .storage("cannot write \(path): check that the server may write to \(folder)") }
        let held = try await secret(Self.folderMarkName, proposed: mark)
        guard ServerSecrets.equal(held, mark) else {
            throw .fleetMismatch("\(folder) is not the data folder of the servers on this database: every memora-server on one database "
                                 + "must use the same folder (a shared volume: the uploads are kept there). Start this one with that "
                                 + "folder's --data, or give it a database of its own (Docs/Sync.md, \"A fleet\")")
        }
    }

    private static func readMark(_ path: String) -> String? {
        guard let bytes = try? SystemFile(path).read(4096, at: 0) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    // MARK: Leases

    /// Takes or renews the lease of the server `id` until `now` + ``leaseMilliseconds`` (milliseconds since 1970).
    func holdLease(_ id: String, now: Int64) async throws(ServerError) {
        _ = try await database.run([SQLStatement(
            "INSERT INTO server_leases (server_id, expires_at) VALUES (?, ?) ON CONFLICT (server_id) DO UPDATE SET expires_at = excluded.expires_at",
            [.text(id), .integer(now + Self.leaseMilliseconds)])])
    }

    /// Ends the lease of the server `id` (it stops).
    func releaseLease(_ id: String) async throws(ServerError) {
        _ = try await database.run([SQLStatement("DELETE FROM server_leases WHERE server_id = ?", [.text(id)])])
    }

    /// The servers whose lease runs at `now` (milliseconds since 1970); the ended leases are removed.
    func liveServers(now: Int64) async throws(ServerError) -> Set<String> {
        let results = try await database.run([
            SQLStatement("DELETE FROM server_leases WHERE expires_at <= ?", [.integer(now)]),
            SQLStatement("SELECT server_id FROM server_leases"),
        ])
        return Set(try (results.last ?? []).column("server_id", as: String.self))
    }
}
