internal import Foundation
internal import NIOCore
internal import NIOHTTP1

/// What HTTP/1.1 says of a request's first lines (RFC 9112), done on the parsed head before Hummingbird
/// turns it into its own request, which keeps neither an absolute-form target nor a method the parser
/// does not know:
///
/// - an **absolute-form** target (`GET http://photos.example.home/ HTTP/1.1`) is judged by its
///   authority, not by its `Host` header (§3.2.2): the target becomes its path and query, and its
///   authority the one `Host` (a request with several `Host` lines keeps them, and
///   ``HTTPRulesMiddleware`` answers `400`);
/// - a **method the parser does not know** (`FOO / HTTP/1.1`) is answered `501 Not Implemented`
///   (RFC 9110 §15.6.2), not the `400` a malformed request gets, and the connection closes.
final class RequestTargetHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Whether a response has begun and not ended: an error answer can only be written outside one.
    private var responding = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if let (authority, target) = Self.absoluteForm(head.uri), head.headers["Host"].count <= 1 {
            head.uri = target
            head.headers.replaceOrAdd(name: "Host", value: authority)
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200: responding = true
        case .end: responding = false
        default: break
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, parserError == .invalidMethod, !responding else {
            context.fireErrorCaught(error)
            return
        }
        let body = #"{"error":{"code":"not_implemented","message":"the server does not implement this method; the API is described in Docs/openapi.json"}}"#
        let headers = HTTPHeaders([("Connection", "close"), ("Content-Type", "application/json; charset=utf-8"), ("Content-Length", "\(body.utf8.count)"),
                                   ("X-Content-Type-Options", "nosniff")])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .notImplemented, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }

    /// The authority and the origin-form target (path and query, `/` when empty) of an absolute-form
    /// target `scheme://authority/path?query`; nil for any other form.
    static func absoluteForm(_ uri: String) -> (authority: String, target: String)? {
        guard !uri.hasPrefix("/"), let schemeEnd = uri.range(of: "://") else { return nil }
        let scheme = uri[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = uri[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = String(rest[..<authorityEnd])
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        let path = rest[authorityEnd...].prefix { $0 != "#" }
        return (authority, path.hasPrefix("/") ? String(path) : "/" + path)
    }

    /// Puts a ``RequestTargetHandler`` right after the HTTP/1 request decoder, where the parsed head and
    /// the parser's errors are still HTTP/1's (Hummingbird's channel takes extra handlers only after its
    /// conversion); then removes itself.
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny

        func handlerAdded(context: ChannelHandlerContext) {
            do {
                let decoder = try context.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                try context.pipeline.syncOperations.addHandler(RequestTargetHandler(), position: .after(decoder))
            } catch {
                context.fireErrorCaught(error)
            }
            // Its work is done: it leaves, and is not a step of every read.
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.fireChannelRead(data)
        }
    }
}
