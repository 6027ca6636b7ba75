internal import Hummingbird
internal import Logging
internal import NIOCore

/// Logs every request at `info` once it is answered: its method, its route's pattern
/// (`/api/people/{id}`, never the path itself, which may hold ids, and never the query, which may hold
/// the dashboard key), the status and the time taken in milliseconds. No header, token or body is logged.
/// The outermost middleware, so the status is the one the client gets.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = (ContinuousClock.now - start).components
        let milliseconds = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
        context.logger.info("request", metadata: [
            "method": "\(request.method.rawValue)",
            "route": "\(Self.route(context.endpointPath))",
            "status": "\(response.status.code)",
            "ms": "\((milliseconds * 10).rounded() / 10)",
        ])
        return response
    }

    /// The pattern of the route that answered: `(none)` when no route matched (Hummingbird names that "NotFound").
    static func route(_ endpointPath: String?) -> String {
        guard let endpointPath, endpointPath.hasPrefix("/") else { return "(none)" }
        return endpointPath
    }
}
