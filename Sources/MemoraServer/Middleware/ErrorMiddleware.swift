internal import Hummingbird
internal import Foundation
internal import MemoraSync
internal import NIOHTTP1
internal import HTTPTypes
internal import MemoraHTTP

/// Turns every failure into the one JSON error shape (``APIErrorBody``) with its status, adds
/// `Retry-After` to a `429`, and logs each refusal's route pattern, status and code (never a token, a
/// caption or a body). Every answer says `X-Content-Type-Options: nosniff` (a text memory is never run
/// as a page).
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        var response = try await answer(request, context: context, next: next)
        response.headers[Self.contentTypeOptions] = "nosniff"
        return response
    }

    /// `X-Content-Type-Options`, made once.
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!

    private func answer(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ServerError {
            context.logger.info("refused", metadata: ["route": "\(RequestLogMiddleware.route(context.endpointPath))", "status": "\(error.status)", "code": "\(error.apiError.code)"])
            if Self.wantsPage(request) { return Self.page(for: error, path: request.uri.path) }
            return Self.response(for: error)
        } catch let error as any HTTPResponseError {
            let status = Int(error.status.code)
            let code = status == 404 ? "not_found" : status == 413 ? "too_large" : status == 405 ? "method_not_allowed" : "http_\(status)"
            let message = status == 404 ? "no such route: the API is described in Docs/openapi.json"
                : status == 413 ? "the body is too large" : "the request failed with HTTP \(status)"
            return Self.json(APIErrorBody(error: APIError(code: code, message: message)), status: error.status)
        } catch let error as HTTPParserError {
            // The body's framing broke mid-request (a bad chunk size, say): the client's fault, not ours.
            context.logger.info("refused", metadata: ["route": "\(RequestLogMiddleware.route(context.endpointPath))", "status": "400", "code": "invalid_http"])
            return Self.response(for: .invalidRequest("the request's body is not valid HTTP framing (\(error))",
                                                      [FieldProblem(field: "body", message: "send a Content-Length body or valid chunks")]))
        } catch {
            context.logger.error("internal error", metadata: ["route": "\(RequestLogMiddleware.route(context.endpointPath))", "error": "\(type(of: error))"])
            return Self.json(APIErrorBody(error: APIError(code: "internal", message: "the server failed; its log says more")), status: .internalServerError)
        }
    }

    /// Whether `request` is a browser's, for one of the dashboard's pages: not under `/api/`, and HTML
    /// is what it accepts. Such a request is refused with a page, not with the JSON error body.
    static func wantsPage(_ request: Request) -> Bool {
        !request.uri.path.hasPrefix("/api/") && request.headers[.accept]?.contains("text/html") == true
    }

    /// A refusal as the dashboard's page saying it, with the same status.
    static func page(for error: ServerError, path: String) -> Response {
        var response = DashboardRoutes.html(DashboardPage.failure(error, back: DashboardPage.back(from: path)), status: HTTPResponse.Status(code: error.status))
        if let wait = error.retryAfter { response.headers[.retryAfter] = String(wait.wholeSecondsRoundedUp) }
        return response
    }

    static func response(for error: ServerError) -> Response {
        var response = json(APIErrorBody(error: error.apiError), status: HTTPResponse.Status(code: error.status))
        if let wait = error.retryAfter { response.headers[.retryAfter] = String(wait.wholeSecondsRoundedUp) }
        if error.code == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer" }
        return response
    }

    /// A JSON response.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
