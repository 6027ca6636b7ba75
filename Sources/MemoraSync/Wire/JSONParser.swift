/// A JSON reader with a budget: the server's one way to read a request body.
///
/// Foundation's `JSONDecoder` has no limit on nesting or on the number of values, and decodes a
/// ``JSONValue`` by trying every type in turn (a failed try costs an error value), so a 4 MiB body of
/// a million empty objects kept a core busy for seconds. This reader makes one pass over the bytes,
/// builds the ``JSONValue`` directly, and stops at the first value past ``Limits``; a typed request
/// is then read from that value by ``JSONValueDecoder``.
package struct JSONParser {
    /// How much JSON one body may hold.
    package struct Limits: Sendable, Hashable {
        /// The deepest nesting of arrays and objects.
        package var maxDepth: Int
        /// The most values (scalars, arrays and objects, keys not counted).
        package var maxValues: Int

        /// 32 levels and 200,000 values: a push of 500 mutations, or a photo with 100 faces and
        /// their embeddings, is well inside; a body built to make work is stopped early.
        package static let request = Limits(maxDepth: 32, maxValues: 200_000)

        package init(maxDepth: Int, maxValues: Int) {
            self.maxDepth = maxDepth
            self.maxValues = maxValues
        }
    }

    /// Why a body is not JSON the server reads.
    package struct Failure: Error, Sendable, Hashable {
        /// The byte at which reading stopped.
        package var offset: Int
        /// What is wrong, in words.
        package var message: String
        /// True when the body is valid so far but over ``Limits``.
        package var overLimit: Bool

        package init(offset: Int, message: String, overLimit: Bool) {
            self.offset = offset
            self.message = message
            self.overLimit = overLimit
        }
    }

    private let bytes: [UInt8]
    private let limits: Limits
    private var position = 0
    private var values = 0

    /// Reads `bytes` (UTF-8 JSON) as one value, with nothing but white space after it.
    package static func parse(_ bytes: [UInt8], limits: Limits = .request) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: bytes, limits: limits)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.position == bytes.count else { throw parser.failure("unexpected text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8], limits: Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    private func failure(_ message: String, overLimit: Bool = false) -> Failure {
        Failure(offset: position, message: message, overLimit: overLimit)
    }

    private mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        values += 1
        guard values <= limits.maxValues else { throw failure("more than \(limits.maxValues) values", overLimit: true) }
        guard position < bytes.count else { throw failure("the JSON ends early") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("expected a JSON value")
        }
    }

    private mutating func literal(_ word: String) throws(Failure) {
        let expected = Array(word.utf8)
        guard position + expected.count <= bytes.count, bytes[position..<position + expected.count].elementsEqual(expected) else {
            throw failure("expected \(word)")
        }
        position += expected.count
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= limits.maxDepth else { throw failure("nested deeper than \(limits.maxDepth) levels", overLimit: true) }
        position += 1
        var members: [String: JSONValue] = [:]
        skipSpace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a key in quotes") }
            let key = try string()
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw failure("expected ':' after a key") }
            position += 1
            skipSpace()
            members[key] = try value(depth: depth)
            skipSpace()
            guard position < bytes.count else { throw failure("the JSON ends inside an object") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
            throw failure("expected ',' or '}' in an object")
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= limits.maxDepth else { throw failure("nested deeper than \(limits.maxDepth) levels", overLimit: true) }
        position += 1
        var items: [JSONValue] = []
        skipSpace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(items)
        }
        while true {
            skipSpace()
            items.append(try value(depth: depth))
            skipSpace()
            guard position < bytes.count else { throw failure("the JSON ends inside an array") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
            throw failure("expected ',' or ']' in an array")
        }
    }

    private mutating func number() throws(Failure) -> JSONValue {
        let start = position
        var integral = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        func digits(_ parser: inout JSONParser) -> Int {
            let first = parser.position
            while parser.position < parser.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.position]) {
                parser.position += 1
            }
            return parser.position - first
        }
        let leading = position
        guard digits(&self) > 0 else { throw failure("expected a digit") }
        if bytes[leading] == UInt8(ascii: "0"), position - leading > 1 { throw failure("a number does not start with 0") }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            integral = false
            position += 1
            guard digits(&self) > 0 else { throw failure("expected a digit after '.'") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            integral = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw failure("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if integral, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else { throw failure("the number \(text.prefix(40)) is out of range") }
        // As JSONDecoder: a number with an exponent or a fraction that is a whole integer is one (1e3
        // is 1000), while the double holds it exactly (below 2^53: -9223372036854775808.5 is not Int64.min).
        if !integral, abs(double) < 9_007_199_254_740_992, let integer = Int64(exactly: double) { return .integer(integer) }
        return .number(double)
    }

    private mutating func string() throws(Failure) -> String {
        position += 1  // the opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flushRun(_ parser: JSONParser, to scalars: inout String.UnicodeScalarView) throws(Failure) {
            guard runStart < parser.position else { return }
            guard let text = String(validating: parser.bytes[runStart..<parser.position], as: UTF8.self) else {
                throw parser.failure("a string is not UTF-8")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                try flushRun(self, to: &scalars)
                position += 1
                return String(scalars)
            }
            if byte < 0x20 { throw failure("a control character inside a string must be escaped") }
            if byte != UInt8(ascii: "\\") {
                position += 1
                continue
            }
            try flushRun(self, to: &scalars)
            position += 1
            guard position < bytes.count else { break }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                let unit = try hexUnit()
                if (0xD800...0xDBFF).contains(unit) {
                    guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                        throw failure("a lone surrogate \\u\(String(unit, radix: 16)) in a string")
                    }
                    position += 2
                    let low = try hexUnit()
                    guard (0xDC00...0xDFFF).contains(low) else { throw failure("a lone surrogate \\u\(String(unit, radix: 16)) in a string") }
                    scalars.append(Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!)
                } else if let scalar = Unicode.Scalar(unit) {
                    scalars.append(scalar)
                } else {
                    throw failure("a lone surrogate \\u\(String(unit, radix: 16)) in a string")
                }
            default:
                throw failure("an unknown escape in a string")
            }
            runStart = position
        }
        throw failure("the JSON ends inside a string")
    }

    private mutating func hexUnit() throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure("expected four hex digits after \\u") }
        var unit: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("expected four hex digits after \\u")
            }
            unit = unit << 4 | digit
            position += 1
        }
        return unit
    }
}
