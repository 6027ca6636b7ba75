public import Foundation
internal import MemoraDatabase
public import MemoraSystem
public import MemoraHTTP

/// What one sync did.
public struct SyncReport: Sendable, Hashable {
    /// The device's id on the server.
    public var deviceID = ""
    /// Local changes the server applied.
    public var pushed = 0
    /// Local changes the server refused for good (see ``SyncReplica/rejections()``).
    public var rejected = 0
    /// Records pulled (changes and tombstones).
    public var pulled = 0
    /// Whether the server told the device to start over (its cursor was too old).
    public var reset = false
    /// Whether the device registered during this sync.
    public var registered = false
}

/// Syncs a ``SyncReplica`` with a Memora server: registers if needed, pushes the outbox, then pulls
/// until nothing is left (Docs/Sync.md, "Client"). A failure at any point leaves every unpushed
/// change queued; the next sync goes on from there.
public struct SyncClient: Sendable {
    /// The replica synced.
    public let replica: SyncReplica
    /// Where the device's credentials are cached.
    public let credentials: SyncCredentialFile
    /// The transport.
    public let transport: any HTTPTransport
    /// The platform the device registers as.
    public let platform: String
    /// The records asked for in each pull.
    public var pageSize = 500
    /// Where the time is read: a token's nearness to expiry, when changes were acknowledged and pulled.
    public var clock: any MemoraClock

    /// Creates a client.
    public init(replica: SyncReplica, credentials: SyncCredentialFile, transport: any HTTPTransport = URLSessionTransport(), platform: String = "linux",
                clock: any MemoraClock = SystemClock()) {
        self.clock = clock
        self.replica = replica
        self.credentials = credentials
        self.transport = transport
        self.platform = platform
    }

    private var now: Int64 { clock.milliseconds() }

    /// Pushes, then pulls, with `server`; `joinCode` registers a device that has no token yet (or
    /// whose token the server no longer takes).
    public func sync(server: URL, joinCode: String? = nil) async throws(SyncError) -> SyncReport {
        var report = SyncReport()
        var session = try await authenticate(server: server, joinCode: joinCode, report: &report)
        report.deviceID = session.deviceID
        _ = try replica.setDeviceID(session.deviceID)
        do {
            try await pushAll(&session, report: &report)
            try await pullAll(&session, report: &report)
        } catch where error.code == .unauthorized {
            guard let joinCode else { throw error }
            session = try await register(server: server, deviceID: session.deviceID, joinCode: joinCode)
            report.registered = true
            try await pushAll(&session, report: &report)
            try await pullAll(&session, report: &report)
        }
        return report
    }

    // MARK: Authentication

    private func authenticate(server: URL, joinCode: String?, report: inout SyncReport) async throws(SyncError) -> SyncCredentials {
        var saved = try credentials.load()
        if let current = saved, current.server != server { saved = SyncCredentials(server: server, deviceID: current.deviceID) }
        let deviceID = saved?.deviceID ?? SyncCredentials.newDeviceID()
        guard let current = saved, current.token != nil else {
            guard let joinCode else { throw SyncError.notRegistered(server: server.absoluteString) }
            report.registered = true
            return try await register(server: server, deviceID: deviceID, joinCode: joinCode)
        }
        // Refresh a token that expires within a week, while it still works.
        if let expires = current.expiresAt, expires - now < 7 * 24 * 3600 * 1000 {
            if let token: DeviceToken = try? await call("POST", "api/devices/refresh", session: current) {
                let refreshed = SyncCredentials(server: server, deviceID: token.deviceId, token: token.token, expiresAt: token.expiresAt)
                try credentials.save(refreshed)
                return refreshed
            }
        }
        return current
    }

    private func register(server: URL, deviceID: String, joinCode: String) async throws(SyncError) -> SyncCredentials {
        let anonymous = SyncCredentials(server: server, deviceID: deviceID)
        let token: DeviceToken = try await call("POST", "api/devices/register",
                                                body: RegisterRequest(deviceId: deviceID, platform: platform, joinCode: joinCode), session: anonymous)
        let registered = SyncCredentials(server: server, deviceID: token.deviceId, token: token.token, expiresAt: token.expiresAt)
        try credentials.save(registered)
        return registered
    }

    // MARK: Push and pull

    private func pushAll(_ session: inout SyncCredentials, report: inout SyncReport) async throws(SyncError) {
        var gaps = 0
        while true {
            let batch = try replica.pending()
            guard !batch.isEmpty else { return }
            let response: PushResponse
            do {
                response = try await call("POST", "api/sync/push", body: PushRequest(mutations: batch), session: session)
            } catch where error.status == 409 && error.apiError?.code == "mutation_gap" {
                // The server lost acknowledged mutations (a restored backup): learn where it is, number ours from there.
                gaps += 1
                guard gaps < 3 else { throw error }
                let page: PullResponse = try await call("POST", "api/sync/pull", body: PullRequest(cursor: try replica.cursor(), limit: 1), session: session)
                try replica.renumberPending(from: page.lastMutationId + 1)
                continue
            }
            guard response.results.count == batch.count else {
                throw SyncError.malformedResponse("a push of \(batch.count) mutations was answered with \(response.results.count) results")
            }
            let applied = response.results.filter { $0.id <= response.lastMutationId }
            report.pushed += applied.filter { $0.status == .applied }.count
            report.rejected += applied.filter { $0.status == .rejected }.count
            try replica.acknowledge(response.lastMutationId, results: response.results, now: now)
            guard response.lastMutationId >= batch[batch.count - 1].id else {
                throw SyncError.malformedResponse("the server processed up to \(response.lastMutationId) of a push up to \(batch[batch.count - 1].id)")
            }
        }
    }

    private func pullAll(_ session: inout SyncCredentials, report: inout SyncReport) async throws(SyncError) {
        for _ in 0..<1_000_000 {
            let page: PullResponse = try await call("POST", "api/sync/pull", body: PullRequest(cursor: try replica.cursor(), limit: pageSize), session: session)
            try replica.apply(page, now: now)
            report.pulled += page.changes.count
            report.reset = report.reset || page.reset
            if !page.hasMore { return }
        }
    }

    // MARK: HTTP

    private func call<Body: Encodable, Answer: Decodable>(_ method: String, _ path: String, body: Body, session: SyncCredentials) async throws(SyncError) -> Answer {
        do {
            return try await api(session).call(method, path, json: body)
        } catch {
            throw .http(error)
        }
    }

    private func call<Answer: Decodable>(_ method: String, _ path: String, session: SyncCredentials) async throws(SyncError) -> Answer {
        do {
            return try await api(session).call(method, path)
        } catch {
            throw .http(error)
        }
    }

    private func api(_ session: SyncCredentials) -> APIClient {
        APIClient(base: session.server, token: session.token, transport: transport)
    }
}
