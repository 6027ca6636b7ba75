internal import Hummingbird
internal import HTTPTypes
internal import MemoraSync
internal import MemoraHTTP

/// HTTP's own rules for a request, before any route: more than one `Host` line is a `400` (RFC 9112
/// §3.2; which one a proxy and this server would each believe is unknowable), and a method HTTP does
/// not define (RFC 9110 §9, and PATCH) is a `501` (RFC 9110 §15.6.2). A method HTTP defines that a
/// path does not take is the path's `405` (``RouteTable``). ``RequestTargetHandler`` does the same for
/// what never reaches a middleware: absolute-form targets and methods the parser does not know.
struct HTTPRulesMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    /// `Host`, made once.
    static let host = HTTPField.Name("Host")!

    /// The methods HTTP defines (RFC 9110 §9.3, RFC 5789's PATCH): any other is not implemented here.
    static let knownMethods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .delete, .connect, .options, .trace, .patch]

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        // Hummingbird keeps the first Host line as the request's authority and any further ones as fields.
        guard request.headers[values: Self.host].isEmpty else {
            throw ServerError.invalidRequest("a request has one Host line (RFC 9112 §3.2)", [FieldProblem(field: "Host", message: "send exactly one Host header")])
        }
        guard Self.knownMethods.contains(request.method) else {
            return ErrorMiddleware.json(APIErrorBody(error: APIError(
                code: "not_implemented", message: "the server does not implement \(request.method.rawValue); the API is described in Docs/openapi.json")),
                status: .notImplemented)
        }
        return try await next(request, context)
    }
}
