internal import Foundation
internal import MemoraSystem
internal import MemoraDatabase
internal import Hummingbird
internal import MemoraSync
internal import MemoraHTTP

/// The handlers of the server's routes: each reads a bounded body, validates every field, calls the
/// store once and answers JSON.
struct SyncRoutes: Sendable {
    let configuration: ServerConfiguration
    let store: SyncStore
    let objects: ObjectStore

    static let platforms = ["linux", "ios", "android", "macos"]

    private var now: Int64 { configuration.clock.milliseconds() }

    private func decode<T: Decodable & Sendable>(_ type: T.Type, from request: Request) async throws -> T {
        try await RequestDecoding.decode(type, from: request, limit: configuration.maxJSONBytes, timeout: configuration.bodyTimeout)
    }

    private func device(_ context: ServerContext) throws -> String {
        guard let device = context.deviceID else { throw ServerError.unauthorized("no device") }
        return device
    }

    // MARK: Devices

    func register(_ request: Request, context: ServerContext) async throws -> Response {
        let body = try await decode(RegisterRequest.self, from: request)
        var problems: [FieldProblem] = []
        if let message = SyncValueCheck.problem(with: .string(body.deviceId), for: .deviceID) {
            problems.append(FieldProblem(field: "deviceId", message: message))
        }
        if !Self.platforms.contains(body.platform) {
            problems.append(FieldProblem(field: "platform", message: "expected one of \(Self.platforms.joined(separator: ", "))"))
        }
        guard problems.isEmpty else { throw ServerError.invalidRequest("the registration is not valid", problems) }
        guard ServerSecrets.equal(body.joinCode, configuration.joinCode) else {
            throw ServerError.unauthorized("the join code is wrong: memora-server printed it when it started (memora-server join-code shows it again)")
        }
        var token = DeviceToken(deviceId: body.deviceId, token: ServerSecrets.randomToken(), expiresAt: now.addingSaturating(configuration.tokenLifetime.wholeMilliseconds))
        token.deviceId = try await store.register(deviceID: body.deviceId, platform: body.platform, tokenHash: ServerSecrets.hash(token.token), expiresAt: token.expiresAt, now: now)
        context.logger.notice("device registered", metadata: ["device": "\(token.deviceId)"])
        return ErrorMiddleware.json(token, status: .created)
    }

    func refresh(_ request: Request, context: ServerContext) async throws -> Response {
        let device = try device(context)
        let token = DeviceToken(deviceId: device, token: ServerSecrets.randomToken(), expiresAt: now.addingSaturating(configuration.tokenLifetime.wholeMilliseconds))
        try await store.replaceToken(deviceID: device, tokenHash: ServerSecrets.hash(token.token), expiresAt: token.expiresAt)
        return ErrorMiddleware.json(token)
    }

    // MARK: Sync

    func push(_ request: Request, context: ServerContext) async throws -> Response {
        let body = try await decode(PushRequest.self, from: request)
        let problems = PushPlan.checkNumbering(body.mutations)
        guard problems.isEmpty else { throw ServerError.invalidRequest("the push is not valid", problems) }
        return ErrorMiddleware.json(try await store.push(deviceID: try device(context), mutations: body.mutations, now: now))
    }

    func pull(_ request: Request, context: ServerContext) async throws -> Response {
        let body = try await decode(PullRequest.self, from: request)
        let limit = body.limit ?? 500
        guard (1...PullRequest.maxLimit).contains(limit) else {
            throw ServerError.invalidRequest("the pull is not valid", [FieldProblem(field: "limit", message: "must be between 1 and \(PullRequest.maxLimit)")])
        }
        if let cursor = body.cursor, cursor.utf8.count > 200 {
            throw ServerError.invalidRequest("the pull is not valid", [FieldProblem(field: "cursor", message: "is not a cursor this server gave")])
        }
        return ErrorMiddleware.json(try await store.pull(deviceID: try device(context), cursor: body.cursor, limit: limit, now: now))
    }

    // MARK: Preferences and errors (the seed's routes, outside a device's numbered mutations)

    func preferences(_ request: Request, context: ServerContext) async throws -> Response {
        let device = try device(context)
        guard let record = try await store.record(collection: SyncSchema.preferences.name, key: device) else {
            throw ServerError.notFound("this device has saved no preferences yet (PUT /api/preferences)")
        }
        return ErrorMiddleware.json(record.fields)
    }

    func putPreferences(_ request: Request, context: ServerContext) async throws -> Response {
        let device = try device(context)
        var fields = try await decode([String: JSONValue].self, from: request)
        fields["device_id"] = .string(device)
        return try await writeDirect(SyncSchema.preferences, fields: fields, device: device, status: .ok)
    }

    func logError(_ request: Request, context: ServerContext) async throws -> Response {
        let device = try device(context)
        var fields = try await decode([String: JSONValue].self, from: request)
        fields["device_id"] = .string(device)
        if fields["id"] == nil { fields["id"] = .string(UUID().uuidString.lowercased()) }
        return try await writeDirect(SyncSchema.errorLogs, fields: fields, device: device, status: .created)
    }

    private func writeDirect(_ collection: SyncCollection, fields: [String: JSONValue], device: String, status: HTTPResponse.Status) async throws -> Response {
        let problems = collection.validate(fields, path: "body")
        guard problems.isEmpty else { throw ServerError.invalidRequest("the \(collection.name) record is not valid", problems) }
        let mutation = SyncMutation(id: 1, collection: collection.name, op: .put, fields: fields)
        let result = try await store.write(deviceID: device, mutation: mutation, now: now)
        if let error = result.error {
            throw ServerError.invalidRequest(error.message, error.fields ?? [])
        }
        guard let record = try await store.record(collection: collection.name, key: collection.key(of: fields) ?? "") else {
            throw ServerError.storage("the record was written but cannot be read back")
        }
        return ErrorMiddleware.json(record.fields, status: status)
    }

    // MARK: Objects

    private func objectHash(_ context: ServerContext) throws -> String {
        let hash = context.parameters.get("sha256") ?? ""
        guard SyncValueCheck.problem(with: .string(hash), for: .sha256) == nil else {
            throw ServerError.invalidRequest("the address does not name an object", [FieldProblem(field: "sha256", message: "expected a SHA-256: 64 lower-case hex digits")])
        }
        return hash
    }

    func headObject(_ request: Request, context: ServerContext) async throws -> Response {
        let hash = try objectHash(context)
        guard try await !store.uploadedObjects([hash]).isEmpty, objects.contains(hash) else {
            throw ServerError.notFound("no such object")
        }
        return Response(status: .ok)
    }

    func putObject(_ request: Request, context: ServerContext) async throws -> Response {
        let hash = try objectHash(context)
        if let length = request.headers[.contentLength].flatMap({ Int64($0) }), length > configuration.maxObjectBytes {
            throw ServerError.tooLarge(limit: Int(configuration.maxObjectBytes))
        }
        if try await !store.uploadedObjects([hash]).isEmpty, objects.contains(hash) {
            for try await _ in request.body {}  // drain: the same bytes are already here
            return ErrorMiddleware.json(["sha256": hash, "status": "exists"], status: .ok)
        }
        let size = try await objects.receive(request.body.map { Array($0.readableBytesView) }, sha256: hash, limit: configuration.maxObjectBytes)
        let added = try await store.addObject(sha256: hash, size: size, now: now)
        return ErrorMiddleware.json(["sha256": hash, "status": added ? "created" : "exists"], status: added ? .created : .ok)
    }
}
