internal import Foundation
internal import MemoraDatabase
internal import Hummingbird
internal import HTTPTypes
internal import ImageKit
internal import MemoraHub
internal import MemoraSync
internal import MemoraSystem
internal import MetadataKit
internal import MemoraHTTP

/// The Memory Palace hub's routes (Docs/Hub.md): pairing by QR code, people, memories and face tags.
struct HubRoutes: Sendable {
    let configuration: ServerConfiguration
    let store: SyncStore
    let hub: HubStore
    let media: HubMedia
    let sessions = SessionLocks()

    private var now: Int64 { configuration.clock.milliseconds() }

    private func device(_ context: ServerContext) throws -> String {
        guard let device = context.deviceID else { throw ServerError.unauthorized("no device") }
        return device
    }

    private func id(_ context: ServerContext, _ name: String = "id") throws -> Int64 {
        guard let text = context.parameters.get(name), let id = Int64(text), id > 0 else {
            throw ServerError.invalidRequest("the address names no \(name == "id" ? "item" : name)", [FieldProblem(field: name, message: "expected a positive integer")])
        }
        return id
    }

    // MARK: Pairing

    /// `POST /api/hub/pair`: a pairing token from the QR code, used once, becomes a device token.
    func pair(_ request: Request, context: ServerContext) async throws -> Response {
        let body = try await RequestDecoding.decode(PairRequest.self, from: request, limit: configuration.maxJSONBytes, timeout: configuration.bodyTimeout)
        var problems: [FieldProblem] = []
        if let message = SyncValueCheck.problem(with: .string(body.deviceId), for: .deviceID) {
            problems.append(FieldProblem(field: "deviceId", message: message))
        }
        if !SyncRoutes.platforms.contains(body.platform) {
            problems.append(FieldProblem(field: "platform", message: "expected one of \(SyncRoutes.platforms.joined(separator: ", "))"))
        }
        if body.pairingToken.isEmpty || body.pairingToken.utf8.count > 200 {
            problems.append(FieldProblem(field: "pairingToken", message: "expected the token of the hub's QR code"))
        }
        guard problems.isEmpty else { throw ServerError.invalidRequest("the pairing is not valid", problems) }
        let now = self.now, pairingHash = ServerSecrets.hash(body.pairingToken)
        guard try await hub.usePairingToken(hash: pairingHash, now: now) else {
            throw ServerError.unauthorized("the pairing code is unknown, used already or expired: show a new QR code (memora-server pair) and scan it again")
        }
        var token = DeviceToken(deviceId: body.deviceId, token: ServerSecrets.randomToken(), expiresAt: now.addingSaturating(configuration.tokenLifetime.wholeMilliseconds))
        do {
            token.deviceId = try await store.register(deviceID: body.deviceId, platform: body.platform, tokenHash: ServerSecrets.hash(token.token), expiresAt: token.expiresAt, now: now)
        } catch {
            // A refused pairing (a revoked device) does not spend the code.
            try? await hub.releasePairingToken(hash: pairingHash, usedAt: now)
            throw error
        }
        context.logger.notice("device paired", metadata: ["device": "\(token.deviceId)"])
        return ErrorMiddleware.json(token, status: .created)
    }

    // MARK: People

    func people(_ request: Request, context: ServerContext) async throws -> Response {
        ErrorMiddleware.json(try await hub.people())
    }

    func person(_ request: Request, context: ServerContext) async throws -> Response {
        guard let person = try await hub.person(id: try id(context)) else { throw ServerError.notFound("no such person") }
        return ErrorMiddleware.json(person)
    }

    private func checked(_ body: PersonRequest) throws -> (name: String, relationship: String?) {
        let name = body.name.trimmingCharacters(in: .whitespacesAndNewlines)
        let relationship = body.relationship?.trimmingCharacters(in: .whitespacesAndNewlines)
        var problems: [FieldProblem] = []
        if let message = name.isEmpty ? "required" : SyncValueCheck.textProblem(name, maxLength: 100, isName: true) { problems.append(FieldProblem(field: "name", message: message)) }
        if let relationship, let message = SyncValueCheck.textProblem(relationship, maxLength: 50, isName: true) { problems.append(FieldProblem(field: "relationship", message: message)) }
        guard problems.isEmpty else { throw ServerError.invalidRequest("the person is not valid", problems) }
        return (name, relationship?.isEmpty == true ? nil : relationship)
    }

    /// `POST /api/people`: `201` with the new person, or `409` with the person who has the name already.
    func addPerson(_ request: Request, context: ServerContext) async throws -> Response {
        let (name, relationship) = try checked(try await RequestDecoding.decode(PersonRequest.self, from: request, limit: configuration.maxJSONBytes, timeout: configuration.bodyTimeout))
        let (person, created) = try await hub.addPerson(name: name, relationship: relationship, device: try device(context), now: now)
        if created { return ErrorMiddleware.json(person, status: .created) }
        return ErrorMiddleware.json(PersonConflict(error: APIError(code: "person_exists", message: "a person called \(person.name) exists already"), person: person), status: .conflict)
    }

    func updatePerson(_ request: Request, context: ServerContext) async throws -> Response {
        let id = try id(context)
        let (name, relationship) = try checked(try await RequestDecoding.decode(PersonRequest.self, from: request, limit: configuration.maxJSONBytes, timeout: configuration.bodyTimeout))
        let (person, conflict) = try await hub.updatePerson(id: id, name: name, relationship: relationship, now: now)
        if let conflict {
            return ErrorMiddleware.json(PersonConflict(error: APIError(code: "person_exists", message: "a person called \(conflict.name) exists already"), person: conflict), status: .conflict)
        }
        guard let person else { throw ServerError.notFound("no such person") }
        return ErrorMiddleware.json(person)
    }

    func removePerson(_ request: Request, context: ServerContext) async throws -> Response {
        let id = try id(context)
        let avatar = try await hub.avatar(person: id)
        guard try await hub.removePerson(id: id) else { throw ServerError.notFound("no such person") }
        if let avatar { try? FileSystem.remove(media.avatarPath(avatar)) }
        return Response(status: .noContent)
    }

    /// `PUT /api/people/{id}/avatar`: an image (at most 20 MB) becomes the person's avatar (256 pixels, JPEG).
    func setAvatar(_ request: Request, context: ServerContext) async throws -> Response {
        let id = try id(context)
        guard try await hub.person(id: id) != nil else { throw ServerError.notFound("no such person") }
        let body = try await request.body.collect(upTo: 20 * 1024 * 1024)
        let bytes = Array(body.readableBytesView)
        let hash: String
        do {
            hash = try await media.makeAvatar(bytes)
        } catch let error as ServerError {
            throw error
        } catch {
            let accepted = ImageFormat.allCases.filter(\.isDecodable).map(\.displayName).joined(separator: ", ")
            let format = ImageFormat.detect(bytes).map { $0.isDecodable ? "this \($0.displayName) cannot be decoded; " : "\($0.displayName) is not read; " } ?? ""
            throw ServerError.invalidRequest("the avatar cannot be read", [FieldProblem(field: "body", message: "\(format)send one of these images: \(accepted)")])
        }
        let previous = try await hub.avatar(person: id)
        guard try await hub.setAvatar(person: id, sha256: hash, now: now), let person = try await hub.person(id: id) else {
            throw ServerError.notFound("no such person")
        }
        if let previous, previous != hash { try? FileSystem.remove(media.avatarPath(previous)) }
        return ErrorMiddleware.json(person)
    }

    /// `GET /api/people/{id}/avatar`: the avatar's JPEG.
    func avatar(_ request: Request, context: ServerContext) async throws -> Response {
        guard let hash = try await hub.avatar(person: try id(context)) else { throw ServerError.notFound("the person has no avatar") }
        let body = try await FileIO().loadFile(path: media.avatarPath(hash), context: context)
        return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=3600"], body: body)
    }

    // MARK: Memories

    /// `POST /api/memories`: multipart with a `metadata` JSON part and a `media` part. `201` with the new
    /// memory, or `200` with the memory that has the same bytes already.
    func addMemory(_ request: Request, context: ServerContext) async throws -> Response {
        let device = try device(context)
        guard let type = request.headers[.contentType], let boundary = MultipartReceiver.boundary(of: type) else {
            throw ServerError.invalidRequest("send the memory as multipart/form-data", [FieldProblem(field: "Content-Type", message: "expected multipart/form-data with a boundary")])
        }
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > configuration.maxMemoryBytes + 1024 * 1024 {
            throw ServerError.tooLarge(limit: Int(configuration.maxMemoryBytes))
        }
        let receiver = MultipartReceiver(boundary: boundary, stagingFolder: media.incoming, maxMetadataBytes: configuration.maxJSONBytes,
                                         maxMediaBytes: configuration.maxMemoryBytes)
        defer { receiver.discard() }
        for try await chunk in request.body { try receiver.feed(chunk) }
        let received = try receiver.finish()
        var staged = received.media
        var session: HubStore.UploadSession?
        // A refused upload leaves nothing; a session's file stays (the memory may be asked for again) until it expires.
        defer { if let staged, session == nil { try? FileSystem.remove(staged.path) } }
        var upload = try RequestDecoding.decode(MemoryUpload.self, from: received.metadata, field: "metadata")
        try await check(&upload)
        if let hash = upload.sha256 {
            // Bytes the hub has already, named instead of sent: only what this device knows joins the memory.
            guard staged == nil, upload.uploadId == nil else {
                throw ServerError.invalidRequest("the memory names its media twice", [FieldProblem(field: "metadata.sha256", message: "send the media, an upload session or the SHA-256 of media the hub has: one of them")])
            }
            guard let existing = try await hub.memory(sha256: hash) else {
                throw ServerError.notFound("the hub has no memory of these bytes (metadata.sha256): send the media")
            }
            guard existing.kind == upload.kind else {
                throw ServerError.invalidRequest("the memory is of another kind", [FieldProblem(field: "metadata.kind", message: "the memory of these bytes is a \(existing.kind.rawValue) memory")])
            }
            return try await merge(upload, into: existing, device: device)
        }
        if let id = upload.uploadId {
            guard staged == nil else {
                throw ServerError.invalidRequest("the memory has both a media part and an upload session", [FieldProblem(field: "metadata.uploadId", message: "send one of them")])
            }
            session = try await completedSession(id, device: device)
            staged = (media.sessionPath(id), session?.sha256 ?? "", session?.size ?? 0, session?.contentType, nil)
        }
        if staged == nil, upload.kind == .text, let text = upload.description, !text.isEmpty {
            staged = try media.stage(Array(text.utf8))
        }
        guard let file = staged else {
            throw ServerError.invalidRequest("the memory has no media", [FieldProblem(field: "media", message: "required for a \(upload.kind.rawValue) memory (a text memory may give its text as description)")])
        }
        let mediaType = try checkedType(upload.kind, declared: file.contentType, path: file.path)
        if let existing = try await hub.memory(sha256: file.sha256) {
            if let session {
                try await hub.removeUploadSession(id: session.id)
                try? FileSystem.remove(file.path)
            }
            return try await merge(upload, into: existing, device: device)
        }
        var info: ImageInfo?
        var descriptionSource = HubStore.DescriptionSource.automatic, extendedSource = HubStore.DescriptionSource.automatic
        // The file is read on a thread of its own (`BlockingWork`), not on the threads every request shares.
        let path = file.path
        if upload.kind == .photo {
            let read = await BlockingWork.computing.run { () -> (info: ImageInfo?, metadata: PhotoMetadata?) in
                guard let info = try? ImageDecoder.info(contentsOf: path) else { return (nil, nil) }
                return (info, try? MetadataReader.scan(contentsOf: path))
            }
            info = read.info
            guard info != nil else {
                throw ServerError.invalidRequest("the photo cannot be read", [FieldProblem(field: "media", message: "send a JPEG, PNG, HEIC, WebP, AVIF or TIFF photo")])
            }
            // The date, place and description the photo itself carries, unless the upload gives them.
            if let metadata = read.metadata {
                if upload.takenAt == nil, let taken = metadata.dateTaken { upload.takenAt = Instant.milliseconds(taken.date) }
                if upload.latitude == nil, let gps = metadata.gps { (upload.latitude, upload.longitude) = (gps.latitude, gps.longitude) }
                if upload.description == nil, let own = MemoryUpload.ownDescription(metadata.captions) {
                    upload.description = own
                    descriptionSource = .photo
                    // Its extended description was written with it: taken too, unless the upload gives one.
                    if upload.extendedDescription == nil, let extended = MemoryUpload.ownExtendedDescription(metadata.captions) {
                        upload.extendedDescription = extended
                        extendedSource = .photo
                    }
                }
            }
        }
        var probed: MediaProbe.Info?
        if upload.kind == .video || upload.kind == .voice {
            // The file must be what it says: FFmpeg reads its streams (and a video's duration and size).
            switch await BlockingWork.computing.run({ MediaProbe.info(path) }) {
            case .success(let found) where upload.kind == .video ? found.hasVideo : found.hasAudio:
                probed = found
            case .success:
                throw ServerError.invalidRequest("the file has no \(upload.kind == .video ? "video" : "sound")", [FieldProblem(field: "media", message: "send a \(upload.kind == .video ? "video" : "voice recording") (MP4, QuickTime, WebM, M4A, MP3, WAV…)")])
            case .failure(let error):
                throw ServerError.invalidRequest("the \(upload.kind.rawValue) cannot be read", [FieldProblem(field: "media", message: "FFmpeg: \(error.message)")])
            }
        }
        try media.keep(file.path, sha256: file.sha256)
        staged = nil
        let thumbnail = upload.kind == .photo ? await media.makeThumbnail(sha256: file.sha256)
            : upload.kind == .video ? await media.makePoster(sha256: file.sha256) : false
        let stored = try await hub.addMemory(HubStore.NewMemory(
            sha256: file.sha256, upload: upload, mediaType: mediaType, size: file.size, width: info?.uprightWidth ?? probed?.width,
            height: info?.uprightHeight ?? probed?.height, durationMilliseconds: probed?.durationMilliseconds, hasThumbnail: thumbnail, device: device,
            descriptionSource: descriptionSource, extendedSource: extendedSource), now: now)
        if let session { try await hub.removeUploadSession(id: session.id) }  // its file is the memory's now
        guard let memory = try await hub.memory(id: stored.id) else { throw ServerError.storage("the memory was not stored") }
        context.logger.info("memory added", metadata: ["id": "\(memory.id)", "kind": "\(memory.kind.rawValue)", "size": "\(memory.size)"])
        return ErrorMiddleware.json(memory, status: stored.created ? .created : .ok)
    }

    /// What this device knows of a memory the hub has (its people, faces, tags) joins it: `200` with the memory.
    private func merge(_ upload: MemoryUpload, into existing: HubMemory, device: String) async throws -> Response {
        guard try await hub.merge(into: existing.id, people: upload.people ?? [], faces: upload.faces ?? [], device: device, now: now),
              let merged = try await hub.memory(id: existing.id) else { throw ServerError.notFound("the memory was removed meanwhile: send it again") }
        return ErrorMiddleware.json(merged, status: .ok)
    }

    /// Field checks of an upload's metadata: lengths, ranges, boxes, known people.
    private func check(_ upload: inout MemoryUpload) async throws {
        upload.title = upload.title.trimmingCharacters(in: .whitespacesAndNewlines)
        var problems = upload.details.problems(prefix: "metadata.")
        if let hash = upload.sha256, !SyncValueCheck.isSHA256(hash) { problems.append(FieldProblem(field: "metadata.sha256", message: "64 lower-case hex digits")) }
        let people = Set(upload.people ?? [])
        if people.count > 100 { problems.append(FieldProblem(field: "metadata.people", message: "at most 100 people")) }
        let faces = upload.faces ?? []
        if faces.count > 100 { problems.append(FieldProblem(field: "metadata.faces", message: "at most 100 faces")) }
        if !faces.isEmpty && upload.kind != .photo { problems.append(FieldProblem(field: "metadata.faces", message: "only a photo memory has faces")) }
        for (index, face) in faces.enumerated() {
            if let message = face.problem { problems.append(FieldProblem(field: "metadata.faces[\(index)]", message: message)) }
        }
        guard problems.isEmpty else { throw ServerError.invalidRequest("the memory is not valid", problems) }
        let wanted = people.union(faces.compactMap(\.personId))
        let missing = wanted.subtracting(try await hub.existingPeople(wanted))
        if !missing.isEmpty {
            throw ServerError.invalidRequest("the memory names people the hub does not have", [FieldProblem(field: "metadata.people", message: "no people with ids \(missing.sorted().map(String.init).joined(separator: ", ")): GET /api/people lists them")])
        }
    }

    /// The media's type, checked against the memory's kind.
    private func checkedType(_ kind: MemoryKind, declared: String?, path: String) throws -> String {
        let type = declared?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        switch kind {
        case .photo:
            // The photo's own bytes decide, not what the client declared.
            switch FileFormat.detect(contentsOf: path) {
            case .jpeg?: return "image/jpeg"
            case .png?: return "image/png"
            case .gif?: return "image/gif"
            case .webp?: return "image/webp"
            case .tiff?, .bigTIFF?: return "image/tiff"
            case .heic?: return "image/heic"
            case .avif?: return "image/avif"
            case .heif?: return "image/heif"
            case nil: throw ServerError.invalidRequest("the photo cannot be read", [FieldProblem(field: "media", message: "send a JPEG, PNG, HEIC, WebP, AVIF or TIFF photo")])
            }
        case .video, .voice:
            let family = kind == .video ? "video/" : "audio/"
            guard type.hasPrefix(family) else {
                throw ServerError.invalidRequest("the media's type does not fit a \(kind.rawValue) memory", [FieldProblem(field: "media", message: "send the file with Content-Type \(family)…")])
            }
            return type
        case .text: return "text/plain; charset=utf-8"
        }
    }

    func memories(_ request: Request, context: ServerContext) async throws -> Response {
        var filter = try Self.filter(request.uri.queryParameters)
        if context.parameters.get("id") != nil { filter.person = try id(context) }
        if let person = filter.person, try await hub.person(id: person) == nil { throw ServerError.notFound("no such person") }
        let page = try await hub.memories(filter)
        return ErrorMiddleware.json(MemoryPage(memories: page.memories, nextCursor: page.more ? page.memories.last.map { String($0.id) } : nil))
    }

    /// The listing's query: `person`, `kind`, `from`, `to` (milliseconds), `sha256` (the memory of these bytes, so a
    /// device can ask before it describes and sends a file the hub has), `cursor`, `limit` (1–200, 50 by default).
    static func filter(_ query: Hummingbird.Parameters) throws -> HubStore.MemoryFilter {
        var filter = HubStore.MemoryFilter(), problems: [FieldProblem] = []
        func integer(_ name: String, _ range: ClosedRange<Int64>) -> Int64? {
            guard let text = query.get(name) else { return nil }
            guard let value = Int64(text), range.contains(value) else {
                problems.append(FieldProblem(field: name, message: "expected an integer from \(range.lowerBound) to \(range.upperBound)"))
                return nil
            }
            return value
        }
        filter.person = integer("person", 1...Int64.max)
        filter.from = integer("from", SyncValueCheck.timestamps)
        filter.to = integer("to", SyncValueCheck.timestamps)
        filter.before = integer("cursor", 1...Int64.max)
        filter.limit = Int(integer("limit", 1...200) ?? 50)
        if let kind = query.get("kind") {
            filter.kind = MemoryKind(rawValue: kind)
            if filter.kind == nil { problems.append(FieldProblem(field: "kind", message: "expected photo, video, voice or text")) }
        }
        if let sha256 = query.get("sha256") {
            if SyncValueCheck.isSHA256(sha256) { filter.sha256 = sha256 } else { problems.append(FieldProblem(field: "sha256", message: "64 lower-case hex digits")) }
        }
        guard problems.isEmpty else { throw ServerError.invalidRequest("the listing's query is not valid", problems) }
        return filter
    }

    func memory(_ request: Request, context: ServerContext) async throws -> Response {
        guard let memory = try await hub.memory(id: try id(context)) else { throw ServerError.notFound("no such memory") }
        return ErrorMiddleware.json(memory)
    }

    func removeMemory(_ request: Request, context: ServerContext) async throws -> Response {
        guard try await hub.removeMemory(id: try id(context), files: media) else { throw ServerError.notFound("no such memory") }
        return Response(status: .noContent)
    }

    /// `GET /api/memories/{id}/media` and `/thumbnail`: the file, streamed; the media whole or the part
    /// a `Range` header asks for (``MediaResponse``).
    func file(_ request: Request, context: ServerContext, thumbnail: Bool) async throws -> Response {
        guard let memory = try await hub.memory(id: try id(context)) else { throw ServerError.notFound("no such memory") }
        guard thumbnail else {
            return try await MediaResponse.answer(request, context: context, path: media.path(memory.sha256), type: memory.mediaType, sha256: memory.sha256)
        }
        guard memory.thumbnailUrl != nil else { throw ServerError.notFound("the memory has no thumbnail") }
        let body = try await FileIO().loadFile(path: media.thumbnailPath(memory.sha256), context: context)
        return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=86400"], body: body)
    }

    // MARK: Upload sessions

    /// A session of this device whose bytes are all there and match its SHA-256; a mismatch ends the session.
    private func completedSession(_ id: String, device: String) async throws -> HubStore.UploadSession {
        guard let session = try await hub.uploadSession(id: id, device: device, now: now) else {
            throw ServerError.invalidRequest("no such upload session", [FieldProblem(field: "metadata.uploadId", message: "unknown, expired or another device's: start a new one")])
        }
        let path = media.sessionPath(id)
        let size = FileSystem.statusIfPresent(of: path)?.size ?? 0
        guard size == session.size else {
            throw ServerError.invalidRequest("the upload session is not complete", [FieldProblem(field: "metadata.uploadId", message: "the hub has \(size) of \(session.size) bytes: send the rest first")])
        }
        let hash = (try? SHA256Digest.hash(contentsOf: path)).map(Hex.string)
        guard hash == session.sha256 else {
            try await hub.removeUploadSession(id: id)
            try? FileSystem.remove(path)
            throw ServerError.invalidRequest("the uploaded bytes are not the file announced", [FieldProblem(field: "metadata.uploadId", message: "their SHA-256 differs: the session was dropped; upload again")])
        }
        return session
    }

    private func status(_ session: HubStore.UploadSession) -> UploadSessionStatus {
        UploadSessionStatus(id: session.id, offset: FileSystem.statusIfPresent(of: media.sessionPath(session.id))?.size ?? 0, size: session.size, expiresAt: session.expiresAt)
    }

    /// `POST /api/uploads`: starts a resumable upload (24 hours to finish it).
    func startUpload(_ request: Request, context: ServerContext) async throws -> Response {
        let device = try device(context)
        let body = try await RequestDecoding.decode(UploadSessionRequest.self, from: request, limit: configuration.maxJSONBytes, timeout: configuration.bodyTimeout)
        var problems: [FieldProblem] = []
        if !(1...configuration.maxMemoryBytes).contains(body.size) { problems.append(FieldProblem(field: "size", message: "between 1 and \(configuration.maxMemoryBytes) bytes")) }
        if !SyncValueCheck.isSHA256(body.sha256) { problems.append(FieldProblem(field: "sha256", message: "64 lower-case hex digits")) }
        if !SyncValueCheck.isMediaType(body.contentType) {
            problems.append(FieldProblem(field: "contentType", message: "a media type such as video/mp4"))
        }
        guard problems.isEmpty else { throw ServerError.invalidRequest("the upload session is not valid", problems) }
        let session = HubStore.UploadSession(id: ServerSecrets.randomToken(bytes: 18), device: device, size: body.size, sha256: body.sha256,
                                             contentType: body.contentType.lowercased(), expiresAt: now + 24 * 3600 * 1000)
        do {
            let file = try SystemFile(media.sessionPath(session.id), .creatingNew(permissions: 0o600))
            file.close()
        } catch {
            throw ServerError.storage("cannot start the upload: \(error)")
        }
        try await hub.addUploadSession(session, now: now)
        return ErrorMiddleware.json(status(session), status: .created)
    }

    /// `GET /api/uploads/{id}`: where the session stands (after a dropped connection).
    func uploadStatus(_ request: Request, context: ServerContext) async throws -> Response {
        guard let id = context.parameters.get("uploadId"), let session = try await hub.uploadSession(id: id, device: try device(context), now: now) else {
            throw ServerError.notFound("no such upload session")
        }
        let current = status(session)
        var response = ErrorMiddleware.json(current)
        response.headers[HTTPField.Name("Upload-Offset")!] = String(current.offset)
        return response
    }

    /// The `Upload-Offset` header's value: 1 to 18 decimal digits (no sign), else a `400` that says
    /// whether the header is missing or malformed.
    static func uploadOffset(_ header: String?) throws(ServerError) -> Int64 {
        let hint = "the session's offset (GET /api/uploads/{id})"
        guard let header else {
            throw .invalidRequest("say where the bytes go", [FieldProblem(field: "Upload-Offset", message: "the header is required: \(hint)")])
        }
        guard (1...18).contains(header.utf8.count), header.utf8.allSatisfy({ (48...57).contains($0) }), let offset = Int64(header) else {
            throw .invalidRequest("say where the bytes go", [FieldProblem(field: "Upload-Offset", message: "must be a non-negative integer (decimal digits only): \(hint)")])
        }
        return offset
    }

    /// `PATCH /api/uploads/{id}` with `Upload-Offset: N`: the next bytes, appended when N is where the
    /// session stands (else `409` with the offset to continue from); durable before the answer.
    func continueUpload(_ request: Request, context: ServerContext) async throws -> Response {
        guard let id = context.parameters.get("uploadId"), let session = try await hub.uploadSession(id: id, device: try device(context), now: now) else {
            throw ServerError.notFound("no such upload session")
        }
        let offset = try Self.uploadOffset(request.headers[HTTPField.Name("Upload-Offset")!])
        guard sessions.begin(id) else { throw ServerError.conflict("another request is writing to this session: wait for it") }
        defer { sessions.end(id) }
        let path = media.sessionPath(id)
        let current = FileSystem.statusIfPresent(of: path)?.size ?? 0
        guard offset == current else {
            throw ServerError.conflict("the session is at byte \(current), not \(offset): continue from there")
        }
        // offset == current <= session.size, so the subtraction cannot overflow; the sum could.
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > session.size - offset {
            throw ServerError.tooLarge(limit: Int(session.size - offset))  // nothing written: the session stays where it was
        }
        let file: SystemFile
        do { file = try SystemFile(path, .readingAndWriting(createWith: nil)) } catch { throw ServerError.storage("cannot continue the upload: \(error)") }
        defer { file.close() }
        var position = offset
        do {
            for try await chunk in request.body {
                guard position + Int64(chunk.readableBytes) <= session.size else { throw ServerError.tooLarge(limit: Int(session.size)) }
                try chunk.withUnsafeReadableBytes { bytes throws(SystemError) in try file.write(bytes, at: position) }
                position += Int64(chunk.readableBytes)
            }
        } catch let error as ServerError {
            try? file.sync()
            throw error
        } catch {
            // The connection dropped: what arrived stays, durable, and the device continues from it.
            try? file.sync()
            throw error
        }
        do { try file.sync() } catch { throw ServerError.storage("cannot store the upload: \(error)") }
        var response = ErrorMiddleware.json(UploadSessionStatus(id: id, offset: position, size: session.size, expiresAt: session.expiresAt))
        response.headers[HTTPField.Name("Upload-Offset")!] = String(position)
        return response
    }

    // MARK: Faces

    /// `POST /api/memories/{id}/faces`: faces another device found on the photo, merged as an upload's
    /// are (a face already there keeps its tag; a new one is added).
    func addFaces(_ request: Request, context: ServerContext) async throws -> Response {
        let id = try id(context)
        let faces = try await RequestDecoding.decode([FaceTag].self, from: request, limit: configuration.maxJSONBytes, timeout: configuration.bodyTimeout)
        var problems: [FieldProblem] = []
        if faces.isEmpty || faces.count > 100 { problems.append(FieldProblem(field: "body", message: "send 1 to 100 faces")) }
        for (index, face) in faces.enumerated() {
            if let message = face.problem { problems.append(FieldProblem(field: "[\(index)]", message: message)) }
        }
        guard problems.isEmpty else { throw ServerError.invalidRequest("the faces are not valid", problems) }
        guard let memory = try await hub.memory(id: id) else { throw ServerError.notFound("no such memory") }
        guard memory.kind == .photo else { throw ServerError.invalidRequest("only a photo memory has faces", [FieldProblem(field: "body", message: "this memory is a \(memory.kind.rawValue)")]) }
        let wanted = Set(faces.compactMap(\.personId))
        let missing = wanted.subtracting(try await hub.existingPeople(wanted))
        guard missing.isEmpty else { throw ServerError.invalidRequest("the faces name people the hub does not have", [FieldProblem(field: "personId", message: "no people with ids \(missing.sorted().map(String.init).joined(separator: ", "))")]) }
        guard try await hub.merge(into: id, people: [], faces: faces, device: try device(context), now: now), let updated = try await hub.memory(id: id) else {
            throw ServerError.notFound("no such memory")
        }
        return ErrorMiddleware.json(updated, status: .created)
    }

    /// `GET /api/faces/known`: the embeddings of tagged faces, at most 32 a person (the latest), so that
    /// every device of the family suggests the people anyone tagged.
    func knownFaces(_ request: Request, context: ServerContext) async throws -> Response {
        ErrorMiddleware.json(KnownFaceList(faces: try await hub.knownFaces(limit: Self.knownFacesLimit)))
    }

    /// The most faces `GET /api/faces/known` answers with (about 15 MB of JSON for 128-float embeddings).
    static let knownFacesLimit = 10_000

    /// `PUT /api/memories/{id}/faces/{faceId}`: who a face is; between devices the later request wins.
    func tagFace(_ request: Request, context: ServerContext) async throws -> Response {
        let id = try id(context), face = try self.id(context, "faceId")
        let body = try await RequestDecoding.decode(FaceTagRequest.self, from: request, limit: configuration.maxJSONBytes, timeout: configuration.bodyTimeout)
        if let person = body.personId, try await hub.existingPeople([person]).isEmpty {
            throw ServerError.invalidRequest("no such person", [FieldProblem(field: "personId", message: "no person \(person): GET /api/people lists them")])
        }
        guard try await hub.tagFace(memoryID: id, faceID: face, person: body.personId, device: try device(context), now: now),
              let memory = try await hub.memory(id: id) else { throw ServerError.notFound("no such face on that memory") }
        return ErrorMiddleware.json(memory)
    }
}

/// The upload sessions a request is writing to right now (one writer per session).
final class SessionLocks: Sendable {
    private let active = Locked<Set<String>>([])

    /// Marks `id` as written; false when another request writes to it.
    func begin(_ id: String) -> Bool { active.withLock { $0.insert(id).inserted } }

    /// The request is done with `id`.
    func end(_ id: String) { _ = active.withLock { $0.remove(id) } }
}
