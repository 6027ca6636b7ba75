public import Foundation
public import MemoraHTTP
public import MemoraSync
public import MemoraSystem

/// The collector's side of a Memory Palace hub (Docs/Hub.md): pair from the QR code, test the
/// connection, upload memories (with progress, cancellable), list and delete them, and manage people.
/// Every failure is a ``HubError`` that says what to do; a taken name is ``HubError/personExists(_:)``
/// with the person who has it.
///
/// ```swift
/// let config = try PairingCode(qrText: scanned)
/// let hub = try await HubClient.pair(config, credentials: SyncCredentialFile(path: path))
/// let ana = try await hub.addPerson(name: "Ana", relationship: "daughter")
/// let (memory, _) = try await hub.upload(MemoryUpload(kind: .photo, title: "Beach", people: [ana.id]), file: "beach.jpg")
/// ```
public struct HubClient: Sendable {
    /// The hub's address.
    public var base: URL { api.base }
    /// The hub's JSON API, with this device's token.
    private let api: APIClient
    /// Where a resumable upload waits before it tries a dropped piece again (`SystemClock` unless set;
    /// tests give a `ManualClock`).
    public var clock: any MemoraClock = SystemClock()

    /// A client with a device token the hub gave (``pair(_:deviceID:platform:credentials:transport:)`` saves it);
    /// every request goes through `transport` (its timeout the longest an upload waits: 300 s by
    /// default; JSON requests wait 60 s).
    public init(base: URL, token: String, transport: any HTTPTransport = URLSessionTransport(timeout: .seconds(300))) {
        api = APIClient(base: base, token: token, transport: transport, timeout: .seconds(60))
    }

    /// The client of the hub this device paired with, from its saved credentials.
    public init(credentials file: SyncCredentialFile, transport: any HTTPTransport = URLSessionTransport(timeout: .seconds(300))) throws(HubError) {
        let saved: SyncCredentials?
        do { saved = try file.load() } catch { throw .file(path: file.path, reason: error.description) }
        guard let saved, let token = saved.token else { throw .notPaired }
        self.init(base: saved.server, token: token, transport: transport)
    }

    /// Pairs with the hub of a QR code: its one-time pairing token becomes this device's token, saved
    /// in `credentials` (0600). The device keeps its id across pairings, unless the hub gives it a new
    /// one (a device whose token still works has that id); the id the hub answers is the one saved.
    public static func pair(_ config: PairingCode, deviceID: String? = nil, platform: String = "linux",
                            credentials file: SyncCredentialFile, transport: any HTTPTransport = URLSessionTransport(timeout: .seconds(300))) async throws(HubError) -> HubClient {
        let known = try? file.load()
        let device = deviceID ?? known?.deviceID ?? SyncCredentials.newDeviceID()
        let body = PairRequest(pairingToken: config.authToken, deviceId: device, platform: platform)
        let token: DeviceToken
        do {
            token = try await APIClient(base: config.url, transport: transport, timeout: .seconds(60)).call("POST", "api/hub/pair", json: body, expecting: [201])
        } catch {
            throw .http(error)
        }
        do {
            try file.save(SyncCredentials(server: config.url, deviceID: token.deviceId, token: token.token, expiresAt: token.expiresAt))
        } catch {
            throw .file(path: file.path, reason: error.description)
        }
        return HubClient(base: config.url, token: token.token, transport: transport)
    }

    /// Checks that the hub answers and this device's token works; returns the hub's health.
    public func testConnection() async throws(HubError) -> HealthResponse {
        let health: HealthResponse = try await json("GET", "api/health")
        _ = try await people()  // the token works
        return health
    }

    // MARK: People

    /// Everyone on the hub, by name.
    public func people() async throws(HubError) -> [HubPerson] {
        try await json("GET", "api/people")
    }

    /// Adds a person; throws ``HubError/personExists(_:)`` with the person when the name is taken.
    public func addPerson(name: String, relationship: String? = nil) async throws(HubError) -> HubPerson {
        try await json("POST", "api/people", body: PersonRequest(name: name, relationship: relationship), expecting: [201])
    }

    /// Renames a person or changes their relationship.
    public func updatePerson(id: Int64, name: String, relationship: String? = nil) async throws(HubError) -> HubPerson {
        try await json("PUT", "api/people/\(id)", body: PersonRequest(name: name, relationship: relationship))
    }

    /// Sets a person's avatar from an image file (the hub keeps a 256-pixel JPEG of it).
    public func setAvatar(person id: Int64, image path: String) async throws(HubError) -> HubPerson {
        let bytes: Data
        do { bytes = Data(try SystemFile(path).readAll()) } catch { throw .file(path: path, reason: "cannot be read: \(error)") }
        let avatar = "api/people/\(id)/avatar"
        let response = try await send(HTTPRequest(method: "PUT", url: api.url(avatar),
                                                  headers: ["Content-Type": MultipartBody.contentType(of: path)], body: bytes, timeout: api.timeout))
        return try check(response, from: avatar, expecting: [200])
    }

    /// Removes a person (their face tags become untagged).
    public func removePerson(id: Int64) async throws(HubError) {
        try await call("DELETE", "api/people/\(id)", expecting: [204])
    }

    // MARK: Memories

    /// A page of memories, newest first; give the page's `nextCursor` to get the next one. `sha256`
    /// (64 lower-case hex digits): only the memory of those bytes.
    public func memories(person: Int64? = nil, kind: MemoryKind? = nil, from: Int64? = nil, to: Int64? = nil, sha256: String? = nil,
                         cursor: String? = nil, limit: Int = 50) async throws(HubError) -> MemoryPage {
        var items = [URLQueryItem(name: "limit", value: String(limit))]
        if let person { items.append(URLQueryItem(name: "person", value: String(person))) }
        if let kind { items.append(URLQueryItem(name: "kind", value: kind.rawValue)) }
        if let sha256 { items.append(URLQueryItem(name: "sha256", value: sha256)) }
        if let from { items.append(URLQueryItem(name: "from", value: String(from))) }
        if let to { items.append(URLQueryItem(name: "to", value: String(to))) }
        if let cursor { items.append(URLQueryItem(name: "cursor", value: cursor)) }
        return try await json("GET", "api/memories", query: items)
    }

    /// One memory.
    public func memory(id: Int64) async throws(HubError) -> HubMemory {
        try await json("GET", "api/memories/\(id)")
    }

    /// The memory of these bytes (`sha256`: 64 lower-case hex digits), nil when the hub has none, waiting
    /// at most `wait` for the answer (the client's 60 s unless given). A hub older than this filter lists
    /// its newest memory instead, so the answer is checked against the hash.
    public func memory(sha256: String, wait: Duration? = nil) async throws(HubError) -> HubMemory? {
        let path = "api/memories", query = [URLQueryItem(name: "sha256", value: sha256), URLQueryItem(name: "limit", value: "1")]
        let response = try await send(HTTPRequest(method: "GET", url: api.url(path, query: query), timeout: wait ?? api.timeout))
        let page: MemoryPage = try check(response, from: path, expecting: [200])
        return page.memories.first { $0.sha256 == sha256 }
    }

    /// Deletes a memory and its files on the hub.
    public func removeMemory(id: Int64) async throws(HubError) {
        try await call("DELETE", "api/memories/\(id)", expecting: [204])
    }

    /// Tags face `face` of memory `memory` with `person` (nil untags it).
    public func tagFace(memory: Int64, face: Int64, person: Int64?) async throws(HubError) -> HubMemory {
        try await json("PUT", "api/memories/\(memory)/faces/\(face)", body: FaceTagRequest(personId: person))
    }

    /// Adds faces found on a memory's photo; a face the photo has already (its box overlaps one with an
    /// IoU of 0.5 or more) is merged into it and keeps its tag.
    public func addFaces(memory: Int64, faces: [FaceTag]) async throws(HubError) -> HubMemory {
        try await json("POST", "api/memories/\(memory)/faces", body: faces, expecting: [201])
    }

    /// The embeddings of the faces tagged on the hub from every device (at most 32 a person, the latest):
    /// what ``KnownFaces`` suggests people from.
    public func knownFaces() async throws(HubError) -> [KnownFace] {
        let list: KnownFaceList = try await json("GET", "api/faces/known")
        return list.faces
    }

    /// Files larger than this (8 MiB) go through an upload session (``uploadResumable(_:file:contentType:pieceSize:retries:progress:)``)
    /// and are read from the file in pieces; smaller ones go in one request made in memory. Either
    /// way the media is never copied and memory stays within 8 MiB or a piece.
    public static let singleRequestLimit: Int64 = 8 << 20

    /// Uploads a memory: `metadata` and the file at `file` (none for a text memory whose text is its
    /// description). `progress` gets the bytes sent and the total. Returns the memory and whether it is
    /// new (the same bytes uploaded before give the existing memory, with what this upload adds to its
    /// people and faces). A file over ``singleRequestLimit`` goes through an upload session, so a dropped
    /// connection costs one piece. Cancelling the task cancels the upload.
    public func upload(_ metadata: MemoryUpload, file: String? = nil, contentType: String? = nil,
                       progress: HTTPProgress? = nil) async throws(HubError) -> (memory: HubMemory, created: Bool) {
        if let file {
            guard let status = FileSystem.statusIfPresent(of: file) else { throw .file(path: file, reason: "no such file") }
            if status.size > Self.singleRequestLimit {
                return try await uploadResumable(metadata, file: file, contentType: contentType, progress: progress)
            }
        }
        let boundary = "memora-" + SyncCredentials.newDeviceID()
        let body = try MultipartBody.make(boundary: boundary, metadata: metadata, file: file,
                                          contentType: contentType ?? file.map(MultipartBody.contentType(of:)) ?? "text/plain")
        let request = HTTPRequest(method: "POST", url: api.url("api/memories"), headers: [
            "Content-Type": "multipart/form-data; boundary=\(boundary)",
        ], body: body, timeout: .seconds(300))
        let response = try await send(request, progress: progress)
        return (try check(response, from: "api/memories", expecting: [200, 201]), response.status == 201)
    }

    /// Uploads a large file (a video) in pieces through an upload session, then makes the memory from it.
    /// A dropped connection costs only the piece in flight: the client asks the hub where the session
    /// stands and continues from there, up to `retries` times in a row. Memory stays at one piece.
    public func uploadResumable(_ metadata: MemoryUpload, file: String, contentType: String? = nil, pieceSize: Int = 8 << 20, retries: Int = 5,
                                progress: HTTPProgress? = nil) async throws(HubError) -> (memory: HubMemory, created: Bool) {
        let source: SystemFile, size: Int64, hash: String
        do {
            source = try SystemFile(file)
            size = try source.size()
            hash = Hex.string(try SHA256Digest.hash(contentsOf: file))
        } catch {
            throw .file(path: file, reason: "cannot be read: \(error)")
        }
        defer { source.close() }
        let request = UploadSessionRequest(size: size, sha256: hash, contentType: contentType ?? MultipartBody.contentType(of: file))
        var status: UploadSessionStatus = try await json("POST", "api/uploads", body: request, expecting: [201])
        var failures = 0
        while status.offset < status.size {
            let count = Int(min(Int64(pieceSize), status.size - status.offset))
            // Read straight into the request's body: one piece in memory, not a piece and its copy.
            var piece = Data(count: count)
            let offset = status.offset
            let failure: SystemError? = piece.withUnsafeMutableBytes { buffer in
                do throws(SystemError) { try source.readExactly(into: buffer, at: offset) } catch { return error }
                return nil
            }
            if let failure { throw .file(path: file, reason: "cannot be read: \(failure)") }
            let response: HTTPResponse
            do {
                response = try await api.send(HTTPRequest(method: "PATCH", url: api.url("api/uploads/\(status.id)"), headers: [
                    "Upload-Offset": String(status.offset), "Content-Type": "application/offset+octet-stream",
                ], body: piece, timeout: .seconds(300)))
            } catch {
                failures += 1
                guard error.code == .connectionFailed || error.code == .timedOut, failures <= retries else { throw .http(error) }
                do { try await clock.sleep(for: .milliseconds(200 * failures)) } catch {
                    throw HubError(.cancelled, "the upload of \(file) to the hub at \(base.absoluteString) was cancelled")
                }
                status = try await json("GET", "api/uploads/\(status.id)")  // what arrived before the connection dropped
                continue
            }
            if response.status == 409 {
                status = try await json("GET", "api/uploads/\(status.id)")  // the hub is elsewhere: continue from there
            } else {
                status = try check(response, from: "api/uploads/\(status.id)", expecting: [200])
                failures = 0
            }
            progress?(status.offset, status.size)
        }
        var upload = metadata
        upload.uploadId = status.id
        return try await self.upload(upload)
    }

    // MARK: HTTP

    private func json<Answer: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [],
                                         expecting: Set<Int> = [200]) async throws(HubError) -> Answer {
        let response: HTTPResponse
        do { response = try await api.send(method, path, query: query) } catch { throw .http(error) }
        return try check(response, from: path, expecting: expecting)
    }

    private func json<Body: Encodable, Answer: Decodable>(_ method: String, _ path: String, body: Body, expecting: Set<Int> = [200]) async throws(HubError) -> Answer {
        let response: HTTPResponse
        do { response = try await api.send(method, path, json: body) } catch { throw .http(error) }
        return try check(response, from: path, expecting: expecting)
    }

    private func call(_ method: String, _ path: String, expecting: Set<Int>) async throws(HubError) {
        do { try await api.call(method, path, expecting: expecting) } catch { throw .http(error) }
    }

    /// Sends `request` with this device's token; no answer is a ``HubError`` (``HubError/http(_:)``).
    private func send(_ request: HTTPRequest, progress: HTTPProgress? = nil) async throws(HubError) -> HTTPResponse {
        do { return try await api.send(request, progress: progress) } catch { throw .http(error) }
    }

    /// `response`'s body as `Answer` when its status is one of `expecting`; otherwise the matching
    /// ``HubError``, naming `path`'s address: a taken name is ``HubError/personExists(_:)`` with the person who has it.
    private func check<Answer: Decodable>(_ response: HTTPResponse, from path: String, expecting: Set<Int>) throws(HubError) -> Answer {
        if response.status == 409, !expecting.contains(409), let conflict = try? JSONDecoder().decode(PersonConflict.self, from: response.body) {
            throw .personExists(conflict.person)
        }
        let endpoint = HTTPRequest.redacted(api.url(path))
        do {
            try APIClient.check(response, expecting: expecting, endpoint: endpoint)
            return try APIClient.decode(response, endpoint: endpoint)
        } catch {
            throw .http(error)
        }
    }
}
