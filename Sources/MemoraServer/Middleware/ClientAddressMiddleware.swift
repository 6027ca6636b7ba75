internal import Foundation
internal import Hummingbird
internal import HTTPTypes

/// Sets ``ServerContext/clientIP``: the TCP peer's address, or, when the peer is one of the
/// configuration's trusted reverse proxies, the address its `X-Forwarded-For` names. The header is
/// read from the right: the last address no trusted proxy added is the client's (a client may put
/// anything in the header it sends, but cannot change what its proxy appends after it). A port after
/// an address (`IP:port`, `[IPv6]:port`) is dropped. The proxy's `X-Forwarded-Proto: https` sets
/// ``ServerContext/isHTTPS``.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    /// The trusted proxies' addresses, normalised.
    let trustedProxies: Set<String>

    init(trustedProxies: [String]) {
        self.trustedProxies = Set(trustedProxies.map(Self.normalised))
    }

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        guard !trustedProxies.isEmpty, trustedProxies.contains(Self.normalised(context.remoteIP)) else {
            return try await next(request, context)
        }
        var context = context
        context.clientIP = clientAddress(forwardedFor: request.headers[values: HTTPField.Name("X-Forwarded-For")!]) ?? context.remoteIP
        // The scheme the client used, as the proxy (the last entry, which it appended or set) says.
        let scheme = request.headers[values: HTTPField.Name("X-Forwarded-Proto")!].joined(separator: ",").split(separator: ",").last
        context.isHTTPS = scheme?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
        return try await next(request, context)
    }

    /// The client's address in the `X-Forwarded-For` lines, or nil when they name none that is valid.
    func clientAddress(forwardedFor lines: [String]) -> String? {
        let addresses = lines.joined(separator: ",").split(separator: ",").map { Self.withoutPort($0.trimmingCharacters(in: .whitespaces)) }
        guard addresses.count <= 64 else { return nil }
        var chosen: String?
        for address in addresses.reversed() {
            guard Self.isAddress(address) else { return chosen }
            chosen = Self.normalised(address)
            if !trustedProxies.contains(chosen!) { return chosen }
        }
        return chosen
    }

    /// An `X-Forwarded-For` entry without the port some proxies add (`203.0.113.7:51234`,
    /// `[2001:db8::7]:51234`, `[2001:db8::7]`), so that each port of one client is not its own
    /// rate-limit bucket; a bare IPv6 address (several colons) is left as it is.
    static func withoutPort(_ entry: String) -> String {
        if entry.hasPrefix("[") {
            guard let close = entry.firstIndex(of: "]") else { return entry }
            let rest = entry[entry.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) && rest.count > 1) else { return entry }
            return String(entry[entry.index(after: entry.startIndex)..<close])
        }
        let parts = entry.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].contains("."), !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else { return entry }
        return String(parts[0])
    }

    /// `address` without the IPv4-mapped IPv6 prefix, lowercased.
    static func normalised(_ address: String) -> String {
        let lowered = address.lowercased()
        return lowered.hasPrefix("::ffff:") && lowered.contains(".") ? String(lowered.dropFirst(7)) : lowered
    }

    /// Whether `text` can be an IPv4 or IPv6 address (digits, hex digits, dots and colons; not a name).
    static func isAddress(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 45 && (text.contains(".") || text.contains(":"))
            && text.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit || $0 == "." || $0 == ":" }
    }
}
