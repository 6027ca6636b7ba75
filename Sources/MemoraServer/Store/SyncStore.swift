public import MemoraSync
internal import MemoraDatabase

/// A registered device as the server knows it.
public struct RegisteredDevice: Sendable, Hashable {
    /// The device's own id.
    public var deviceID: String
    /// Its platform.
    public var platform: String
    /// When it registered (milliseconds, the server's clock).
    public var createdAt: Int64
    /// When it last pushed or pulled.
    public var lastSyncAt: Int64?
    /// When its token was revoked, if it was.
    public var revokedAt: Int64?
    /// Its last processed mutation.
    public var lastMutationID: Int64
}

/// Where a server keeps its data: SQLite (``SQLiteSyncStore``) or PostgreSQL. Every method is one
/// transaction; the protocol's logic shared by both (`PushPlan`, `PullPlan`) is pure.
public protocol SyncStore: Sendable {
    /// `sqlite` or `postgres`.
    var kind: String { get }

    /// Registers a device under `deviceID`, or under a new random id when a device whose token still
    /// works has it: a device id belongs to the token that registered it, so a second registration
    /// never takes a working device's place (its token, its preferences). A device whose token has
    /// expired (offline for months) registers again under its own id, keeping its records. Returns
    /// the id registered. Throws ``ServerError/revoked`` for a revoked device.
    func register(deviceID: String, platform: String, tokenHash: String, expiresAt: Int64, now: Int64) async throws(ServerError) -> String
    /// The device whose unexpired, unrevoked token has this hash.
    func device(tokenHash: String, now: Int64) async throws(ServerError) -> String?
    /// Replaces a device's token.
    func replaceToken(deviceID: String, tokenHash: String, expiresAt: Int64) async throws(ServerError)
    /// Revokes a device's token; false when there is no such device.
    func revoke(deviceID: String, now: Int64) async throws(ServerError) -> Bool
    /// Every registered device.
    func devices() async throws(ServerError) -> [RegisteredDevice]

    /// Applies a push (mutations numbered consecutively) in one transaction. Throws
    /// ``ServerError/mutationGap(expected:)`` when the first new mutation is not the next one.
    func push(deviceID: String, mutations: [SyncMutation], now: Int64) async throws(ServerError) -> PushResponse
    /// Applies one mutation outside the device's numbered order (the `PUT /api/preferences` and
    /// `POST /api/errors/log` routes): checked and versioned as a push's, but not recorded as processed.
    func write(deviceID: String, mutation: SyncMutation, now: Int64) async throws(ServerError) -> MutationResult
    /// A page of changes after `cursor`, in version order, never splitting a version.
    func pull(deviceID: String, cursor: String?, limit: Int, now: Int64) async throws(ServerError) -> PullResponse
    /// A device's own record of a collection (its preferences), nil when it has none.
    func record(collection: String, key: String) async throws(ServerError) -> SyncChange?
    /// Removes tombstones written before `before` (server clock) and moves the retention horizon past
    /// them; devices whose cursor is older then get a reset. Returns how many were removed.
    func purgeTombstones(before: Int64) async throws(ServerError) -> Int

    /// Which of these objects (SHA-256 values) are uploaded.
    func uploadedObjects(_ hashes: Set<String>) async throws(ServerError) -> Set<String>
    /// Records an uploaded object (idempotent); false when it was already there.
    func addObject(sha256: String, size: Int64, now: Int64) async throws(ServerError) -> Bool
    /// Objects uploaded before `before` that no record references, removed from the catalogue.
    func removeOrphanObjects(before: Int64) async throws(ServerError) -> [String]
}

extension SyncStore {
    /// Revokes a device's token now (`memora-server revoke`); false when there is no such device.
    public func revoke(deviceID: String) async throws(ServerError) -> Bool {
        try await revoke(deviceID: deviceID, now: Instant.now)
    }
}
