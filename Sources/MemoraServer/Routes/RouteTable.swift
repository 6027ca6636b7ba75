internal import Hummingbird
internal import HTTPTypes
internal import MemoraSync
internal import MemoraHTTP

/// The server's routes, added through one place so that each path knows its methods: `HEAD` is
/// served wherever `GET` is (the same status and headers, no body), any other method HTTP defines on a
/// path that exists is a `405` whose `Allow` lists that path's own methods (not a `404`), and `OPTIONS`
/// a `204` with the same `Allow`. Routes under `/api/` that need a device's token go to the group that checks it.
final class RouteTable {
    typealias Handler = @Sendable (Request, ServerContext) async throws -> Response
    private let router: Router<ServerContext>
    private let authenticated: RouterGroup<ServerContext>
    /// Each path's methods, in the order the paths were added, and its `GET` handler (and whether it needs a device).
    private var paths: [(path: String, methods: [HTTPRequest.Method], get: (handler: Handler, device: Bool)?)] = []

    /// The methods a route can have, in the order `Allow` lists them.
    static let methodOrder: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete]

    /// A table over `router`; `authenticated` is its group at `/api` that checks a device's token.
    init(router: Router<ServerContext>, authenticated: RouterGroup<ServerContext>) {
        self.router = router
        self.authenticated = authenticated
    }

    /// The methods HTTP defines that no route takes: a `405` on every path, with the path's own `Allow`.
    static let refusedMethods: [HTTPRequest.Method] = [.trace, .connect]

    /// Adds a route anyone may call.
    func open(_ method: HTTPRequest.Method, _ path: String, use handler: @escaping @Sendable (Request, ServerContext) async throws -> some ResponseGenerator) {
        add(method, path, device: false) { request, context in try await handler(request, context).response(from: request, context: context) }
    }

    /// Adds a route under `/api/` that needs a device's token.
    func device(_ method: HTTPRequest.Method, _ path: String, use handler: @escaping @Sendable (Request, ServerContext) async throws -> some ResponseGenerator) {
        precondition(path.hasPrefix("/api/"), "a device route lives under /api/")
        add(method, path, device: true) { request, context in try await handler(request, context).response(from: request, context: context) }
    }

    private func add(_ method: HTTPRequest.Method, _ path: String, device: Bool, _ handler: @escaping Handler) {
        if device {
            authenticated.on(RouterPath(String(path.dropFirst("/api/".count))), method: method, use: handler)
        } else {
            router.on(RouterPath(path), method: method, use: handler)
        }
        if let index = paths.firstIndex(where: { $0.path == path }) {
            paths[index].methods.append(method)
            if method == .get { paths[index].get = (handler, device) }
        } else {
            paths.append((path, [method], method == .get ? (handler, device) : nil))
        }
    }

    /// The `Allow` value for `methods`, in ``methodOrder``.
    static func allowValue(_ methods: [HTTPRequest.Method]) -> String {
        methodOrder.filter(methods.contains).map(\.rawValue).joined(separator: ", ")
    }

    /// Gives every path its `HEAD` (where it has a `GET`), its `405`s and its `OPTIONS`; call once, after the last route.
    func answerOtherMethods() {
        for (path, methods, get) in paths where !methods.contains(.head) {
            guard let (handler, device) = get else { continue }
            add(.head, path, device: device) { request, context in
                let full = try await handler(request, context)
                var headers = full.headers
                if headers[.contentLength] == nil, let length = full.body.contentLength { headers[.contentLength] = String(length) }
                return Response(status: full.status, headers: headers, body: ResponseBody())
            }
        }
        for (path, methods, _) in paths {
            let allow = Self.allowValue(methods)
            for method in Self.methodOrder + Self.refusedMethods where !methods.contains(method) {
                router.on(RouterPath(path), method: method) { request, _ in
                    var response = ErrorMiddleware.json(
                        APIErrorBody(error: APIError(code: "method_not_allowed", message: "\(path) takes \(allow), not \(request.method.rawValue)")),
                        status: .methodNotAllowed)
                    response.headers[.allow] = allow
                    return response
                }
            }
            router.on(RouterPath(path), method: .options) { _, _ in
                Response(status: .noContent, headers: [.allow: allow + ", OPTIONS"])
            }
        }
    }
}
