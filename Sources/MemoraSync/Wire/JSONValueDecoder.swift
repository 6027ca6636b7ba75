/// Reads a `Decodable` type from a ``JSONValue`` that ``JSONParser`` built: the second half of the
/// server's bounded body reading. A ``JSONValue`` inside the type is taken as it is, not decoded again.
///
/// It follows `JSONDecoder`'s defaults: missing keys and `null` are `keyNotFound` and
/// `valueNotFound`, numbers convert to any integer or floating-point type they fit exactly, and
/// every error is a `DecodingError` with the coding path, so callers name the field at fault.
package enum JSONValueDecoder {
    /// `value` as `T`.
    package static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder(value: value, codingPath: []).decode(T.self)
    }
}

/// A decoder that hands its ``JSONValue`` to `JSONValue.init(from:)` as it is.
protocol JSONValueSource {
    var jsonValue: JSONValue { get }
}

private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct ValueDecoder: Decoder, JSONValueSource {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var jsonValue: JSONValue { value }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeValue(T.self, value, codingPath)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([JSONValue].self, value, codingPath) }
        return UnkeyedContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(value: value, codingPath: codingPath) }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    if value == .null {
        return .valueNotFound(type, .init(codingPath: path, debugDescription: "Expected \(type) but found null."))
    }
    return .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected \(type) but found \(value.typeName)."))
}

/// `value` as `T`: a ``JSONValue`` as it is, a scalar converted, anything else through its `init(from:)`.
private func decodeValue<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> T {
    if T.self == JSONValue.self { return value as! T }
    switch T.self {
    case is Bool.Type, is String.Type, is Double.Type, is Float.Type, is Int.Type, is Int64.Type, is Int32.Type, is Int16.Type, is Int8.Type,
         is UInt.Type, is UInt64.Type, is UInt32.Type, is UInt16.Type, is UInt8.Type:
        return try scalar(T.self, value, path)
    default:
        return try T(from: ValueDecoder(value: value, codingPath: path))
    }
}

/// A scalar of `value` as `T`, or the error `JSONDecoder` would give.
private func scalar<T>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> T {
    func number<N>(_ convert: (JSONValue) -> N?) throws -> T {
        guard let result = convert(value) else {
            if case .integer = value { throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "The number does not fit \(T.self).")) }
            if case .number = value { throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "The number does not fit \(T.self).")) }
            throw mismatch(T.self, value, path)
        }
        return result as! T
    }
    func integer<I: FixedWidthInteger>(_: I.Type) throws -> T {
        try number { value -> I? in
            switch value {
            case .integer(let n): I(exactly: n)
            // A whole number the parser kept as a double lies outside Int64 (a smaller one is
            // `.integer`): beyond 2^53 the double is rounded (-9223372036854775809 reads as Int64.min),
            // so it is refused rather than taken as a neighbour.
            case .number(let d): abs(d) < 9_007_199_254_740_992 ? I(exactly: d) : nil
            default: nil
            }
        }
    }
    switch T.self {
    case is Bool.Type:
        guard case .bool(let flag) = value else { throw mismatch(T.self, value, path) }
        return flag as! T
    case is String.Type:
        guard case .string(let text) = value else { throw mismatch(T.self, value, path) }
        return text as! T
    case is Double.Type:
        return try number { value -> Double? in
            switch value {
            case .integer(let n): Double(n)
            case .number(let d): d
            default: nil
            }
        }
    case is Float.Type:
        return try number { value -> Float? in
            switch value {
            case .integer(let n): Float(n)
            case .number(let d): Float(d).isFinite ? Float(d) : nil
            default: nil
            }
        }
    case is Int.Type: return try integer(Int.self)
    case is Int64.Type: return try integer(Int64.self)
    case is Int32.Type: return try integer(Int32.self)
    case is Int16.Type: return try integer(Int16.self)
    case is Int8.Type: return try integer(Int8.self)
    case is UInt.Type: return try integer(UInt.self)
    case is UInt64.Type: return try integer(UInt64.self)
    case is UInt32.Type: return try integer(UInt32.self)
    case is UInt16.Type: return try integer(UInt16.self)
    case is UInt8.Type: return try integer(UInt8.self)
    default: throw mismatch(T.self, value, path)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value for the key \"\(key.stringValue)\"."))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeValue(T.self, try member(key), codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(members), codingPath: codingPath) }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    private mutating func next<T>(_ type: T.Type) throws -> (JSONValue, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [IndexKey(currentIndex)], debugDescription: "The array has no more values."))
        }
        defer { currentIndex += 1 }
        return (items[currentIndex], codingPath + [IndexKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw DecodingError.valueNotFound(Any?.self, .init(codingPath: codingPath, debugDescription: "The array has no more values.")) }
        if items[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, path) = try next(type)
        return try decodeValue(T.self, value, path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next([String: JSONValue].self)
        return try ValueDecoder(value: value, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next([JSONValue].self)
        return try ValueDecoder(value: value, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next(JSONValue.self)
        return ValueDecoder(value: value, codingPath: path)
    }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeValue(T.self, value, codingPath)
    }
}
