public import Foundation
public import MemoraHTTP
public import MemoraSync
import GRDB
import MemoraDatabase
internal import MemoraSystem

/// `memora sync`: pushes this device's queued changes to a Memora server and pulls the others'
/// (Docs/Sync.md). The caption database holds the replica, so a local change and its queued
/// mutation commit together; a failed sync leaves everything queued for the next one.
public struct SyncJob: Sendable {
    /// The caption database whose replica is synced.
    public let database: CaptionDatabase
    /// Where the device's token is cached (0600).
    public let credentials: SyncCredentialFile
    /// The transport (loopback test servers and fault injection in tests).
    public let transport: any HTTPTransport
    /// Reads the network type for `wifi_only`.
    public let monitor: any ConstraintMonitor

    /// `$XDG_CONFIG_HOME/memora/sync-credentials.json`.
    public static var defaultCredentialsPath: String { ApplicationFolders().configuration + "/sync-credentials.json" }

    /// Creates the job.
    public init(database: CaptionDatabase, credentials: SyncCredentialFile = SyncCredentialFile(path: SyncJob.defaultCredentialsPath),
                transport: any HTTPTransport = URLSessionTransport(), monitor: any ConstraintMonitor = LinuxConstraintMonitor()) {
        self.database = database
        self.credentials = credentials
        self.transport = transport
        self.monitor = monitor
    }

    /// Syncs with `server`; `joinCode` registers a device that has not joined it. With `wifi_only`
    /// set, waits for an unmetered network unless `ignoringNetwork`.
    public func run(server: URL, joinCode: String? = nil, ignoringNetwork: Bool = false) async throws(SyncError) -> SyncReport {
        let preferences: CaptionPreferences
        do { preferences = try database.preferences() } catch { throw .database(error.message) }
        if preferences.wifiOnly && !ignoringNetwork {
            let network = await monitor.currentConditions().network
            if !network.isUnmetered {
                throw .waitingForNetwork(network.rawValue)
            }
        }
        let replica = database.syncReplica
        let client = SyncClient(replica: replica, credentials: credentials, transport: transport)
        do {
            let joined = try replica.deviceID() == nil
            var report = try await client.sync(server: server, joinCode: joinCode)
            if joined {
                // A device that just joined sends its preferences as they are.
                try database.write { db in try CaptionDatabase.queuePreferences(in: db) }
                let second = try await client.sync(server: server, joinCode: joinCode)
                report.pushed += second.pushed
                report.rejected += second.rejected
                report.pulled += second.pulled
            }
            try adoptPreferences(from: replica, device: report.deviceID)
            return report
        } catch let error as SyncError {
            throw error
        } catch {
            // The caption database's writes (GRDB) around the client's sync.
            throw .database(MemoraError.reason(of: error))
        }
    }

    /// The server wins: this device's preferences as the server has them (with unpushed changes laid
    /// over) become the local ones.
    private func adoptPreferences(from replica: SyncReplica, device: String) throws {
        guard let fields = try replica.records(in: SyncSchema.preferences)[device] else { return }
        func flag(_ name: String) -> Int? { if case .bool(let value)? = fields[name] { return value ? 1 : 0 } else { return nil } }
        try database.write { db in
            var assignments: [ColumnAssignment] = []
            for name in ["background_enabled", "auto_process_new", "process_existing", "wifi_only", "charging_only"] {
                if let value = flag(name) { assignments.append(Column(name).set(to: value)) }
            }
            if case .string(let mode)? = fields["ai_mode"], CaptionMode(parsing: mode) != nil { assignments.append(Column("ai_mode").set(to: mode)) }
            if !assignments.isEmpty { _ = try PreferencesRecord.filter(id: 1).updateAll(db, assignments) }
        }
    }
}
