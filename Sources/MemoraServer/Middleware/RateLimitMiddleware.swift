internal import Hummingbird
internal import Foundation
internal import MemoraSystem

/// The rate limit before authentication: a token bucket per client address (``ServerContext/clientIP``).
struct IPRateLimitMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let limiter: TokenBucketLimiter

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        if let wait = limiter.take(context.clientIP) {
            throw ServerError.rateLimited(retryAfter: .seconds(wait))
        }
        return try await next(request, context)
    }
}

/// Authentication: a `Bearer` token whose hash names a registered, unrevoked device whose token has not
/// expired; then the rate limit per device. `401` otherwise, on every route behind it.
struct DeviceAuthMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let store: SyncStore
    let limiter: TokenBucketLimiter
    /// Where a token's expiry is read against.
    let clock: any MemoraClock

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "), header.count < 512 else {
            throw ServerError.unauthorized("send the device's token: Authorization: Bearer TOKEN (POST /api/devices/register gives one)")
        }
        let token = String(header.dropFirst("Bearer ".count))
        guard let device = try await store.device(tokenHash: ServerSecrets.hash(token), now: clock.milliseconds()) else {
            throw ServerError.unauthorized("the token is unknown, expired or revoked: register the device again")
        }
        if let wait = limiter.take(device) { throw ServerError.rateLimited(retryAfter: .seconds(wait)) }
        var context = context
        context.deviceID = device
        context.logger[metadataKey: "device"] = "\(device)"
        return try await next(request, context)
    }
}
