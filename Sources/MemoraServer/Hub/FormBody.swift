internal import Foundation
internal import MemoraHTTP

/// A form's fields as a browser sends them (`application/x-www-form-urlencoded`): the dashboard's
/// forms post this way, without script. Bounded: at most ``maxFields`` fields, each name and value
/// percent-decoded as UTF-8; a field named twice keeps its first value.
enum FormBody {
    /// The most fields a form may send.
    static let maxFields = 32

    /// The fields of `bytes`, else a `400` that says what is wrong.
    static func fields(_ bytes: [UInt8]) throws(ServerError) -> [String: String] {
        var fields: [String: String] = [:]
        let pairs = bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true)
        guard pairs.count <= maxFields else {
            throw .invalidRequest("the form sends more fields than it has", [FieldProblem(field: "body", message: "at most \(maxFields) fields")])
        }
        for pair in pairs {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : []) else {
                throw .invalidRequest("the form's fields are not text", [FieldProblem(field: "body", message: "send the form as the page has it (UTF-8, percent-encoded)")])
            }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// One percent-encoded name or value (`+` is a space); nil when an escape is malformed or the bytes are not UTF-8.
    private static func decode(_ encoded: some Collection<UInt8>) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var index = encoded.startIndex
        while index != encoded.endIndex {
            let byte = encoded[index]
            if byte == UInt8(ascii: "%") {
                let high = encoded.index(after: index)
                guard high != encoded.endIndex else { return nil }
                let low = encoded.index(after: high)
                guard low != encoded.endIndex, let first = digit(encoded[high]), let second = digit(encoded[low]) else { return nil }
                bytes.append(first << 4 | second)
                index = encoded.index(after: low)
                continue
            }
            bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = encoded.index(after: index)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The value of one hexadecimal digit.
    private static func digit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
