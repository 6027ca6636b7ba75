internal import Foundation
internal import Hummingbird
internal import HTTPTypes
internal import MemoraSystem

/// A memory's file as an answer, whole or in part (HTTP range requests, RFC 9110 §14): a player seeks
/// by asking for the bytes from a point on, and a 1 GiB video is read in 128 KiB pieces as they are
/// sent, never whole. Its ETag is the file's SHA-256 (the hub keeps files by their bytes), so
/// `If-Range` can tell a part of this file from a part of another; the type is the one the hub
/// checked at upload (with `nosniff`, as every answer of the hub).
enum MediaResponse {
    /// The part a `Range` header asks for in a file of `size` bytes.
    enum Part: Equatable, Sendable {
        /// The whole file: no range, one the server ignores (malformed, several ranges, another unit), or an empty file.
        case whole
        /// These bytes (first and last, inclusive).
        case bytes(ClosedRange<Int64>)
        /// A range that starts past the end (`416`).
        case unsatisfiable
    }

    /// The part `header` asks for. Only one range of bytes is served; anything else gets the whole
    /// file, as the RFC allows. Numbers are read only when they have at most 18 digits, so no
    /// arithmetic on them overflows.
    static func part(_ header: String?, size: Int64) -> Part {
        guard let header, size > 0 else { return .whole }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes="), !trimmed.contains(",") else { return .whole }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let sides = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard sides.count == 2 else { return .whole }
        func number(_ text: Substring) -> Int64? {
            guard (1...18).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int64(text)
        }
        if sides[0].isEmpty {
            // The last N bytes.
            guard let count = number(sides[1]) else { return .whole }
            guard count > 0 else { return .unsatisfiable }
            return .bytes(max(0, size - count)...(size - 1))
        }
        guard let first = number(sides[0]) else { return .whole }
        var last = size - 1
        if !sides[1].isEmpty {
            guard let given = number(sides[1]), given >= first else { return .whole }
            last = min(given, size - 1)
        }
        guard first < size else { return .unsatisfiable }
        return .bytes(first...last)
    }

    /// The answer with the file at `path` (of type `type`, whose SHA-256 is `sha256`), or the part of
    /// it the request asks for.
    static func answer(_ request: Request, context: ServerContext, path: String, type: String, sha256: String) async throws -> Response {
        guard let status = FileSystem.statusIfPresent(of: path), status.kind == .regular else {
            throw ServerError.notFound("the memory's file is missing from the hub")
        }
        let size = status.size, etag = "\"\(sha256)\""
        // Every answer says nosniff already (ErrorMiddleware).
        var headers: HTTPFields = [.contentType: type, .cacheControl: "private, max-age=86400", .acceptRanges: "bytes", .eTag: etag]
        var part = part(request.headers[.range], size: size)
        // A part of another version of the file is not asked for: send it whole.
        if let condition = request.headers[.ifRange], condition != etag { part = .whole }
        switch part {
        case .whole:
            let body = size == 0 ? ResponseBody() : try await FileIO().loadFile(path: path, range: 0...Int(size - 1), context: context)
            return Response(status: .ok, headers: headers, body: body)
        case .bytes(let range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            let body = try await FileIO().loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            headers[.contentType] = nil
            return Response(status: .rangeNotSatisfiable, headers: headers, body: ResponseBody())
        }
    }
}
