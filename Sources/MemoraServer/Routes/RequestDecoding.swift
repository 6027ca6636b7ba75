internal import Foundation
internal import Hummingbird
internal import MemoraSync
internal import MemoraHTTP

/// Request bodies read as JSON, and decoding errors as the field at fault and what was expected.
///
/// Every body goes through ``JSONParser`` (one pass, nesting and value count bounded) and then
/// ``JSONValueDecoder``: the work a request costs is linear in its size and capped, and bodies over
/// 64 KiB are read one at a time off the shared thread pool.
enum RequestDecoding {
    /// The body as `T`: at most `limit` bytes of UTF-8 JSON arriving within `timeout`, else a
    /// `400` naming the field at fault (`413` past the limit).
    static func decode<T: Decodable & Sendable>(_ type: T.Type, from request: Request, limit: Int, timeout: Duration) async throws -> T {
        let buffer = try await body(of: request, limit: limit, timeout: timeout)
        let data = Data(buffer.readableBytesView)
        guard data.count > largeBody else { return try decode(type, from: data) }
        // A large body is read off the shared thread pool, one at a time: however many arrive at
        // once, they use one core and the other requests (a health check, a small pull) go on.
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            largeBodies.async { continuation.resume(with: Result { try decode(type, from: data) }) }
        }
    }

    /// The body: at most `limit` bytes arriving within `timeout`, else a `400` (`413` past the limit).
    static func body(of request: Request, limit: Int, timeout: Duration) async throws -> ByteBuffer {
        let body = request.body
        return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await body.collect(upTo: limit) }
            group.addTask {
                try await Task.sleep(for: max(.milliseconds(100), timeout))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let buffer = first else {
                throw ServerError.invalidRequest("the body did not arrive within \(timeout)",
                                                 [FieldProblem(field: "body", message: "send the whole body at once")])
            }
            return buffer
        }
    }

    /// Bodies larger than this (64 KiB) are read on ``largeBodies``.
    static let largeBody = 64 * 1024
    /// The one queue large bodies are read on, in turn.
    static let largeBodies = DispatchQueue(label: "memora-server.large-bodies", qos: .utility)

    /// `data` as `T`, else a `400` naming the field at fault.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, field: String = "body") throws -> T {
        guard String(validating: data, as: UTF8.self) != nil else {
            throw ServerError.invalidRequest("the \(field) is not UTF-8", [FieldProblem(field: field, message: "send JSON in UTF-8")])
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse([UInt8](data))
        } catch {
            throw ServerError.invalidRequest(error.overLimit ? "the \(field) holds more JSON than a request may" : "the \(field) is not JSON",
                                             [FieldProblem(field: field, message: error.overLimit ? "\(error.message): send less at a time" : "\(error.message) (at byte \(error.offset))")])
        }
        do {
            return try JSONValueDecoder.decode(type, from: value)
        } catch let error as DecodingError {
            var problem = problem(error)
            if field != "body" { problem.field = problem.field == "body" ? field : field + "." + problem.field }
            throw ServerError.invalidRequest("the \(field) is not the JSON this route takes", [problem])
        } catch {
            throw ServerError.invalidRequest("the \(field) is not the JSON this route takes", [FieldProblem(field: field, message: "send a JSON object")])
        }
    }

    static func problem(_ error: DecodingError) -> FieldProblem {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text.isEmpty ? "body" : text
        }
        switch error {
        case .keyNotFound(let key, let context): return FieldProblem(field: path(context.codingPath + [key]), message: "required")
        case .typeMismatch(let type, let context): return FieldProblem(field: path(context.codingPath), message: "expected \(describe(type))")
        case .valueNotFound(let type, let context): return FieldProblem(field: path(context.codingPath), message: "expected \(describe(type)), got null")
        case .dataCorrupted(let context): return FieldProblem(field: path(context.codingPath), message: context.codingPath.isEmpty ? "not valid JSON" : "not a valid value")
        @unknown default: return FieldProblem(field: "body", message: "not valid")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Int64.Type, is Int.Type: "an integer"
        case is Bool.Type: "true or false"
        default: "\(type)".hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
