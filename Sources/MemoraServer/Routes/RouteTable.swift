internal import Hummingbird
internal import HTTPTypes
internal import MemoraSync

/// The server's routes, added through one place so that each path knows its methods: any other
/// method on a path that exists is a `405` with `Allow` (not a `404`), and `OPTIONS` a `204` with
/// the same `Allow`. Routes under `/api/` that need a device's token go to the group that checks it.
final class RouteTable {
    private let router: Router<ServerContext>
    private let authenticated: RouterGroup<ServerContext>
    /// Each path's methods, in the order the paths were added.
    private var paths: [(path: String, methods: [HTTPRequest.Method])] = []

    /// The methods a route can have, in the order `Allow` lists them.
    static let methodOrder: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete]

    /// A table over `router`; `authenticated` is its group at `/api` that checks a device's token.
    init(router: Router<ServerContext>, authenticated: RouterGroup<ServerContext>) {
        self.router = router
        self.authenticated = authenticated
    }

    /// Adds a route anyone may call.
    func open(_ method: HTTPRequest.Method, _ path: String, use handler: @escaping @Sendable (Request, ServerContext) async throws -> some ResponseGenerator) {
        router.on(RouterPath(path), method: method, use: handler)
        note(method, path)
    }

    /// Adds a route under `/api/` that needs a device's token.
    func device(_ method: HTTPRequest.Method, _ path: String, use handler: @escaping @Sendable (Request, ServerContext) async throws -> some ResponseGenerator) {
        precondition(path.hasPrefix("/api/"), "a device route lives under /api/")
        authenticated.on(RouterPath(String(path.dropFirst("/api/".count))), method: method, use: handler)
        note(method, path)
    }

    /// The `Allow` value for `methods`, in ``methodOrder``.
    static func allowValue(_ methods: [HTTPRequest.Method]) -> String {
        methodOrder.filter(methods.contains).map(\.rawValue).joined(separator: ", ")
    }

    /// Gives every path its `405`s and its `OPTIONS`; call once, after the last route.
    func answerOtherMethods() {
        for (path, methods) in paths {
            let allow = Self.allowValue(methods)
            for method in Self.methodOrder where !methods.contains(method) {
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

    private func note(_ method: HTTPRequest.Method, _ path: String) {
        if let index = paths.firstIndex(where: { $0.path == path }) {
            paths[index].methods.append(method)
        } else {
            paths.append((path, [method]))
        }
    }
}
