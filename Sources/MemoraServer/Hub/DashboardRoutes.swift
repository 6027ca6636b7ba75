internal import Foundation
internal import Hummingbird
internal import MemoraDatabase
internal import MemoraHTTP
internal import HTTPTypes
internal import MemoraHub
internal import MemoraSync
internal import MemoraSystem

/// The dashboard's pages (`/`, `/people/{id}`, `/memories`, `/memories/{id}`), the pairing code (`POST /dashboard/pair`), signing out
/// (`POST /dashboard/logout`) and the thumbnails, avatars and media they show. They open only with the
/// dashboard key (`memora-server dashboard` prints the address with it), from this machine too, since
/// behind a reverse proxy every visitor comes from the loopback. The key is exchanged once for a
/// session: a random token in an HttpOnly, SameSite=Strict cookie (`Secure` when a trusted proxy says
/// the browser came over HTTPS), of which the hub keeps only the SHA-256 and the key it was opened
/// with, so signing out ends it and a new key (`memora-server dashboard --rotate`) ends them all. A page is served
/// only under a name of this hub (its addresses, `localhost`, its host name, the configured
/// ``ServerConfiguration/serverNames``), and a pairing code is made only when a person asks for one.
struct DashboardRoutes: Sendable {
    let configuration: ServerConfiguration
    let hub: HubStore
    let media: HubMedia
    let key: String
    /// Where the key is read from at each check (`memora-server dashboard --rotate` replaces it), nil: `key` alone.
    let fleet: Fleet?
    /// The names the dashboard answers to besides this machine's addresses (read once: the host
    /// name is a system call, the configuration does not change).
    let names: Set<String>

    /// How long a session lasts without signing out.
    static let sessionLifetime: Int64 = 30 * 24 * 3600 * 1000

    init(configuration: ServerConfiguration, hub: HubStore, media: HubMedia, key: String, fleet: Fleet?) {
        (self.configuration, self.hub, self.media, self.key, self.fleet) = (configuration, hub, media, key, fleet)
        var names: Set<String> = ["localhost", "127.0.0.1", "::1"]
        if !["0.0.0.0", "::"].contains(configuration.host) { names.insert(configuration.host.lowercased()) }
        let machine = ProcessInfo.processInfo.hostName.lowercased()
        if !machine.isEmpty { names.formUnion([machine, machine + ".local"]) }
        for name in configuration.serverNames { names.insert(name.lowercased()) }
        self.names = names
    }

    static let cookie = "memora_dashboard"

    /// The key now: the database's (it may have been replaced since the server started), else the one given.
    private func currentKey() async throws(ServerError) -> String {
        guard let fleet, let current = try await fleet.existingSecret(Fleet.dashboardKeyName), !current.isEmpty else { return key }
        return current
    }

    /// Whether the request may see the dashboard: its cookie names a live session of the current key.
    /// A valid `?key=` opens a session and answers with a redirect that sets its cookie.
    func admit(_ request: Request, context: ServerContext) async throws -> Response? {
        try checkHost(request)
        let key = try await currentKey(), now = configuration.clock.milliseconds()
        if let token = request.cookies[Self.cookie]?.value,
           try await hub.isDashboardSession(tokenHash: ServerSecrets.hash(token), keyHash: ServerSecrets.hash(key), now: now) {
            return nil
        }
        if let given = request.uri.queryParameters.get("key"), ServerSecrets.equal(given, key) {
            let token = try await hub.openDashboardSession(key: key, now: now, lifetime: Self.sessionLifetime)
            // Back to the page asked for, on this hub only (a path such as //host would leave it).
            let path = request.uri.path.hasPrefix("/") && !request.uri.path.hasPrefix("//") ? request.uri.path : "/"
            var response = Response(status: .seeOther, headers: [.location: path, .cacheControl: "no-store"])
            response.setCookie(Cookie(name: Self.cookie, value: token, maxAge: Int(Self.sessionLifetime / 1000), path: "/", secure: context.isHTTPS,
                                      httpOnly: true, sameSite: .strict))
            return response
        }
        throw ServerError.unauthorized("the dashboard opens with its key: run `memora-server dashboard` on the hub for its address")
    }

    /// `POST /dashboard/logout`: ends this browser's session (the hub forgets it) and clears its cookie.
    func logout(_ request: Request, context: ServerContext) async throws -> Response {
        try checkHost(request)
        try checkSameOrigin(request)
        if let token = request.cookies[Self.cookie]?.value { try await hub.removeDashboardSessions(tokenHash: ServerSecrets.hash(token)) }
        var response = html(DashboardPage.signedOut())
        response.setCookie(Cookie(name: Self.cookie, value: "", maxAge: 0, path: "/", secure: context.isHTTPS, httpOnly: true, sameSite: .strict))
        return response
    }

    /// Refuses a request whose `Host` is not a name of this hub: a page elsewhere that points a name of
    /// its own at this machine (DNS rebinding) must not be served the dashboard under it.
    func checkHost(_ request: Request) throws {
        guard let authority = request.head.authority, let host = Self.hostName(authority), allowedHosts().contains(host) else {
            throw ServerError.forbidden("the dashboard is served under this hub's own names only: open it at the address `memora-server dashboard` prints, "
                                        + "or, behind a reverse proxy, start the hub with --server-name NAME")
        }
    }

    /// The names and addresses the dashboard answers to, lowercased: ``names`` and this machine's
    /// addresses now (they change when a network comes or goes).
    func allowedHosts() -> Set<String> {
        names.union(NetworkAddress.all().map { $0.lowercased() })
    }

    /// The host part of a `Host` header (`name`, `name:port`, `[v6]:port`), lowercased; nil when malformed.
    static func hostName(_ authority: String) -> String? {
        let lowered = authority.lowercased()
        if lowered.hasPrefix("[") {
            guard let close = lowered.firstIndex(of: "]") else { return nil }
            return String(lowered[lowered.index(after: lowered.startIndex)..<close])
        }
        let parts = lowered.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let name = parts.first, !name.isEmpty else { return nil }
        return String(name)
    }

    /// Refuses a form sent from another site: its `Origin`, when the browser sends one, must be this page's.
    func checkSameOrigin(_ request: Request) throws {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], !["same-origin", "none"].contains(site) {
            throw ServerError.forbidden("the dashboard's forms are sent from its own page only")
        }
        guard let origin = request.headers[HTTPField.Name("Origin")!] else { return }
        let authority = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init)
        guard let authority, authority.lowercased() == request.head.authority?.lowercased() else {
            throw ServerError.forbidden("the dashboard's forms are sent from its own page only")
        }
    }

    private func html(_ text: String) -> Response { Self.html(text) }

    /// An HTML page of the dashboard, with its security headers.
    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                                        HTTPField.Name("Content-Security-Policy")!: "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    func home(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try await admit(request, context: context) { return redirect }
        let memories = try await hub.memories(HubStore.MemoryFilter(limit: 24)).memories
        return html(DashboardPage.home(memories: memories, people: try await hub.people()))
    }

    /// `POST /dashboard/pair`: a new single-use pairing code (QR code and text), made only when a person
    /// presses the page's button; it works for ten minutes.
    func pair(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try await admit(request, context: context) { return redirect }
        try checkSameOrigin(request)
        // The port this connection reached (the configuration may say 0).
        let address = HubAddress.reaching(listeningOn: configuration.host, port: context.localPort ?? configuration.port)
        let pairing = try await hub.newPairingCode(host: address.host, port: address.port, lifetimeSeconds: 600, name: "Memory Palace",
                                                 now: configuration.clock.milliseconds())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(pairing), as: UTF8.self)
        return html(DashboardPage.pairing(pairing, json: json, qr: QRCode(json)))
    }

    func person(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try await admit(request, context: context) { return redirect }
        guard let id = context.parameters.get("id").flatMap(Int64.init), let person = try await hub.person(id: id) else {
            throw ServerError.notFound("no such person")
        }
        let memories = try await hub.memories(HubStore.MemoryFilter(person: id, limit: 200)).memories
        return html(DashboardPage.person(person, memories: memories, people: try await hub.people()))
    }

    /// The longest search the memories page takes.
    static let maxSearchLength = 200
    /// How many memories a page of them shows.
    static let pageSize = 24

    /// What `/memories` is asked to show: its query's filters, search and page, each checked.
    static func listing(_ request: Request) throws -> DashboardPage.Listing {
        let query = request.uri.queryParameters
        var listing = DashboardPage.Listing(), problems: [FieldProblem] = []
        // An empty value is the form's "every" choice.
        func given(_ name: String) -> String? { query.get(name).flatMap { $0.isEmpty ? nil : $0 } }
        if let search = given("q") {
            if search.count > maxSearchLength { problems.append(FieldProblem(field: "q", message: "at most \(maxSearchLength) characters")) }
            listing.search = String(search.prefix(maxSearchLength))
        }
        if let person = given("person") {
            listing.person = Int64(person)
            if listing.person == nil { problems.append(FieldProblem(field: "person", message: "a person's number, as the form offers")) }
        }
        if let kind = given("kind") {
            listing.kind = MemoryKind(rawValue: kind)
            if listing.kind == nil { problems.append(FieldProblem(field: "kind", message: "photo, video, voice or text")) }
        }
        if let year = given("year") {
            listing.year = Int(year).flatMap { (1...9999).contains($0) ? $0 : nil }
            if listing.year == nil { problems.append(FieldProblem(field: "year", message: "a year from 1 to 9999")) }
        }
        if let before = given("before") {
            listing.after = HubStore.MemoryCursor(before)
            if listing.after == nil { problems.append(FieldProblem(field: "before", message: "a page link as the dashboard makes it (TIME.ID)")) }
        }
        guard problems.isEmpty else { throw ServerError.invalidRequest("the page's address asks for memories in a way it cannot show", problems) }
        return listing
    }

    /// `/memories`: every memory in pages of ``pageSize``, newest first (by when each was made), with
    /// filters by person, kind and year and a search over titles and texts; each page links to the next
    /// by the last memory's time and id, so a link stays valid while memories are added.
    func memories(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try await admit(request, context: context) { return redirect }
        let listing = try Self.listing(request)
        let filter = HubStore.MemoryFilter(person: listing.person, kind: listing.kind, order: .made, after: listing.after, year: listing.year,
                                           search: listing.search, limit: Self.pageSize)
        let page = try await hub.memories(filter)
        let next = page.more ? page.memories.last.map(HubStore.MemoryCursor.init) : nil
        return html(DashboardPage.memories(page.memories, listing: listing, next: next, people: try await hub.people(), years: try await hub.years()))
    }

    /// `/memories/{id}`: one memory's page, with its player.
    func memory(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try await admit(request, context: context) { return redirect }
        guard let id = context.parameters.get("id").flatMap(Int64.init), let memory = try await hub.memory(id: id) else {
            throw ServerError.notFound("no such memory")
        }
        return html(try await memoryPage(memory))
    }

    /// A memory's page, with a refused `correction` in its form when there is one.
    private func memoryPage(_ memory: HubMemory, correction: DashboardPage.Correction? = nil) async throws -> String {
        // Whether a video has sound is read from its file (the hub did not keep it): its headers only.
        var hasSound: Bool?
        if memory.kind == .video {
            let file = media.path(memory.sha256)
            hasSound = await BlockingWork.computing.run { (try? MediaProbe.info(file).get())?.hasAudio }
        }
        let sources = try await hub.descriptionSources(memory: memory.id) ?? (.automatic, .automatic)
        return DashboardPage.memory(memory, people: try await hub.people(), device: try await hub.platform(ofDevice: memory.uploadedBy), hasSound: hasSound,
                                    source: sources.description, extendedSource: sources.extended, edits: try await hub.edits(memory: memory.id),
                                    correction: correction)
    }

    /// The largest form the dashboard takes: a text memory's 100,000 characters, percent-encoded.
    static let maxFormBytes = 1 << 20

    /// The form a dashboard page posted: the session admitted, the `Host` and `Origin` this hub's
    /// (with the SameSite=Strict cookie, what keeps another site from posting it), the body bounded.
    /// Returns the memory it is about, the fields, and who sent it (the session's short name).
    private func form(_ request: Request, context: ServerContext) async throws -> (memory: HubMemory, fields: [String: String], editor: String) {
        try checkSameOrigin(request)
        guard let id = context.parameters.get("id").flatMap(Int64.init), let memory = try await hub.memory(id: id) else {
            throw ServerError.notFound("no such memory")
        }
        let body = try await RequestDecoding.body(of: request, limit: Self.maxFormBytes, timeout: configuration.bodyTimeout)
        let fields = try FormBody.fields(Array(body.readableBytesView))
        return (memory, fields, Self.editor(request))
    }

    /// Who sends a form: "browser " and the first 8 hex digits of the session token's SHA-256 (never the token).
    static func editor(_ request: Request) -> String {
        "browser " + String((request.cookies[cookie].map { ServerSecrets.hash($0.value) } ?? "unknown").prefix(8))
    }

    /// `POST /memories/{id}/edit`: a person's correction of the title and the description (a text
    /// memory's text). Each change is recorded so that it can be undone; the file is not touched.
    func edit(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try await admit(request, context: context) { return redirect }
        let (memory, fields, editor) = try await form(request, context: context)
        let title = (fields["title"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        // A browser sends a textarea's lines ended by CR LF: as the hub keeps them, by LF, so an
        // untouched text is not a change. A form without the field leaves the description as it is.
        let description = fields["description"].map {
            $0.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        } ?? memory.description ?? ""
        var problems: [FieldProblem] = []
        if let message = MemoryDetails.titleProblem(title) { problems.append(FieldProblem(field: "title", message: message)) }
        if let message = SyncValueCheck.textProblem(description, maxLength: MemoryDetails.descriptionLimit(for: memory.kind)) {
            problems.append(FieldProblem(field: "description", message: message))
        }
        guard problems.isEmpty else {
            // A browser gets the page again, with what was typed and what to change; a script the JSON error.
            guard ErrorMiddleware.wantsPage(request) else { throw ServerError.invalidRequest("the correction cannot be saved", problems) }
            let typed = DashboardPage.Correction(title: fields["title"] ?? "", description: description, problems: problems)
            return Self.html(try await memoryPage(memory, correction: typed), status: .badRequest)
        }
        guard let edits = try await hub.edit(memory: memory.id, title: title, description: description.isEmpty ? nil : description, by: editor,
                                             now: configuration.clock.milliseconds()) else {
            throw ServerError.notFound("no such memory")
        }
        context.logger.info("memory corrected on the dashboard", metadata: ["id": "\(memory.id)", "fields": "\(edits.map(\.field.rawValue).joined(separator: ","))"])
        return Response(status: .seeOther, headers: [.location: "/memories/\(memory.id)#changes-title", .cacheControl: "no-store"])
    }

    /// `POST /memories/{id}/undo`: undoes one recorded change (the form's `edit`), when the field still has the value it gave.
    func undo(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try await admit(request, context: context) { return redirect }
        let (memory, fields, editor) = try await form(request, context: context)
        guard let edit = fields["edit"].flatMap(Int64.init) else {
            throw ServerError.invalidRequest("the form does not say which change to undo", [FieldProblem(field: "edit", message: "the change's number, as the page has it")])
        }
        switch try await hub.undo(edit: edit, memory: memory.id, by: editor, now: configuration.clock.milliseconds()) {
        case .undone:
            context.logger.info("memory correction undone on the dashboard", metadata: ["id": "\(memory.id)"])
            return Response(status: .seeOther, headers: [.location: "/memories/\(memory.id)#changes-title", .cacheControl: "no-store"])
        case .notFound:
            throw ServerError.notFound("no such change of this memory, or it was undone already: reload the memory's page")
        case .changedSince:
            throw ServerError.conflict("the field was changed again since: undo the later change first (it is listed above this one)")
        }
    }

    /// `GET /memories/{id}/delete`: the page that asks whether to delete the memory.
    func confirmDeletion(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try await admit(request, context: context) { return redirect }
        guard let id = context.parameters.get("id").flatMap(Int64.init), let memory = try await hub.memory(id: id) else {
            throw ServerError.notFound("no such memory")
        }
        return html(DashboardPage.confirmDeletion(memory))
    }

    /// `POST /memories/{id}/delete`: deletes the memory, its people, faces and changes; its file and
    /// thumbnail go when no memory refers to them any more. Logged (the id, never the title).
    func delete(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try await admit(request, context: context) { return redirect }
        let (memory, _, editor) = try await form(request, context: context)
        guard try await hub.removeMemory(id: memory.id, files: media) else { throw ServerError.notFound("no such memory") }
        context.logger.notice("memory deleted on the dashboard", metadata: ["id": "\(memory.id)", "kind": "\(memory.kind.rawValue)", "by": "\(editor)"])
        return html(DashboardPage.deleted(memory))
    }

    /// `/dashboard/media/{id}`: a memory's file for its page's image or player, whole or the part a
    /// `Range` header asks for (``MediaResponse``).
    func media(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try await admit(request, context: context) { return redirect }
        guard let id = context.parameters.get("id").flatMap(Int64.init), let memory = try await hub.memory(id: id), memory.kind != .text else {
            throw ServerError.notFound("no such media")
        }
        return try await MediaResponse.answer(request, context: context, path: media.path(memory.sha256), type: memory.mediaType, sha256: memory.sha256)
    }

    func avatar(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try await admit(request, context: context) { return redirect }
        guard let id = context.parameters.get("id").flatMap(Int64.init), let hash = try await hub.avatar(person: id) else {
            throw ServerError.notFound("no such avatar")
        }
        let body = try await FileIO().loadFile(path: media.avatarPath(hash), context: context)
        return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=3600"], body: body)
    }

    func thumbnail(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try await admit(request, context: context) { return redirect }
        guard let id = context.parameters.get("id").flatMap(Int64.init), let memory = try await hub.memory(id: id), memory.thumbnailUrl != nil else {
            throw ServerError.notFound("no such thumbnail")
        }
        let body = try await FileIO().loadFile(path: media.thumbnailPath(memory.sha256), context: context)
        return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=86400"], body: body)
    }
}
