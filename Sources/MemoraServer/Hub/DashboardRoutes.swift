internal import Foundation
internal import Hummingbird
internal import HTTPTypes
internal import MemoraHub
internal import MemoraSystem

/// The dashboard's pages (`/`, `/people/{id}`) and the thumbnails they show (`/dashboard/thumbnails/{id}`).
/// They open without a key from this machine (loopback); from another machine only with the dashboard
/// key (`memora-server dashboard` prints the address with it), which then stays in an HttpOnly,
/// SameSite=Strict cookie. Each view of the home page makes a new single-use pairing code.
struct DashboardRoutes: Sendable {
    let configuration: ServerConfiguration
    let hub: HubStore
    let media: HubMedia
    let key: String

    static let cookie = "memora_dashboard"

    /// Whether the request may see the dashboard; a valid `?key=` answers with a redirect that sets the cookie.
    func admit(_ request: Request, context: ServerContext) throws -> Response? {
        if ["127.0.0.1", "::1", "::ffff:127.0.0.1"].contains(context.remoteIP) { return nil }
        if let cookie = request.cookies[Self.cookie]?.value, ServerSecrets.equal(cookie, key) { return nil }
        if let given = request.uri.queryParameters.get("key"), ServerSecrets.equal(given, key) {
            // Back to the page asked for, on this hub only (a path such as //host would leave it).
            let path = request.uri.path.hasPrefix("/") && !request.uri.path.hasPrefix("//") ? request.uri.path : "/"
            var response = Response(status: .seeOther, headers: [.location: path, .cacheControl: "no-store"])
            response.setCookie(Cookie(name: Self.cookie, value: key, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
        throw ServerError.unauthorized("the dashboard opens on the hub itself, or with its key: run `memora-server dashboard` on the hub for the address")
    }

    private func html(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                                        HTTPField.Name("Content-Security-Policy")!: "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The address devices reach this hub at: the network address when it listens on every network,
    /// else the address it listens on (a hub on the loopback pairs only programs on its own machine).
    private var hubAddress: String {
        ["0.0.0.0", "::"].contains(configuration.host) ? (NetworkAddress.localIPv4() ?? "127.0.0.1") : configuration.host
    }

    func home(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try admit(request, context: context) { return redirect }
        // The port the browser reached: the one to put in the code (the configuration may say 0).
        let port = request.head.authority.flatMap { $0.split(separator: ":").last.flatMap { Int($0) } } ?? configuration.port
        let token = ServerSecrets.randomToken(bytes: 18)
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        let expires = now + 600_000
        try await hub.addPairingToken(hash: ServerSecrets.hash(token), expiresAt: expires, now: now)
        let pairing = ServerConfig(serverIP: hubAddress, port: port, authToken: token, serverName: "Memory Palace", expiresAt: expires)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(pairing), as: UTF8.self)
        let memories = try await hub.memories(HubStore.MemoryFilter(limit: 24)).memories
        return html(DashboardPage.home(memories: memories, people: try await hub.people(), pairing: pairing, pairingJSON: json, qr: QRCode(json)))
    }

    func person(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try admit(request, context: context) { return redirect }
        guard let id = context.parameters.get("id").flatMap(Int64.init), let person = try await hub.person(id: id) else {
            throw ServerError.notFound("no such person")
        }
        let memories = try await hub.memories(HubStore.MemoryFilter(person: id, limit: 200)).memories
        return html(DashboardPage.person(person, memories: memories, people: try await hub.people()))
    }

    func avatar(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try admit(request, context: context) { return redirect }
        guard let id = context.parameters.get("id").flatMap(Int64.init), let hash = try await hub.avatar(person: id) else {
            throw ServerError.notFound("no such avatar")
        }
        let body = try await FileIO().loadFile(path: media.avatarPath(hash), context: context)
        return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=3600"], body: body)
    }

    func thumbnail(_ request: Request, context: ServerContext) async throws -> Response {
        if let redirect = try admit(request, context: context) { return redirect }
        guard let id = context.parameters.get("id").flatMap(Int64.init), let memory = try await hub.memory(id: id), memory.thumbnailUrl != nil else {
            throw ServerError.notFound("no such thumbnail")
        }
        let body = try await FileIO().loadFile(path: media.thumbnailPath(memory.sha256), context: context)
        return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=86400"], body: body)
    }
}
