internal import MemoraSystem

/// The checks behind ``SyncField/Kind``: one function per kind, each returning what is wrong or nil.
package enum SyncValueCheck {
    package static func problem(with value: JSONValue, for kind: SyncField.Kind) -> String? {
        switch kind {
        case .text(let maxLength):
            guard case .string(let text) = value else { return "expected text, got \(value.typeName)" }
            return textProblem(text, maxLength: maxLength)
        case .identifier:
            guard case .string(let text) = value, isUUID(text) else {
                return "expected a lower-case UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e"
            }
            return nil
        case .deviceID:
            guard case .string(let text) = value, isDeviceID(text) else {
                return "expected a device id: 16 to 128 letters, digits, '-' or '_'"
            }
            return nil
        case .sha256:
            guard case .string(let text) = value, isSHA256(text) else { return "expected a SHA-256: 64 lower-case hex digits" }
            return nil
        case .choice(let words):
            guard case .string(let text) = value, words.contains(text) else {
                return "expected one of \(words.joined(separator: ", "))"
            }
            return nil
        case .integer(let range):
            guard case .integer(let number) = value else { return "expected an integer, got \(value.typeName)" }
            return range.contains(number) ? nil : "must be between \(range.lowerBound) and \(range.upperBound)"
        case .real(let range):
            let number: Double
            switch value {
            case .integer(let whole): number = Double(whole)
            case .number(let real): number = real
            default: return "expected a number, got \(value.typeName)"
            }
            guard number.isFinite, range.contains(number) else {
                return "must be between \(range.lowerBound) and \(range.upperBound)"
            }
            return nil
        case .boolean:
            guard case .bool = value else { return "expected true or false, got \(value.typeName)" }
            return nil
        case .timestamp:
            guard case .integer(let number) = value else { return "expected milliseconds since 1970 (an integer)" }
            return Self.timestamps.contains(number) ? nil : "must be between 0 and 253402300799999 (year 9999)"
        case .jsonObject(let maxMembers, let maxNameLength, let maxTextLength):
            guard case .object(let members) = value else { return "expected an object, got \(value.typeName)" }
            // PostgreSQL's text and jsonb cannot hold U+0000; both stores refuse it alike.
            if holdsNUL(value) { return "contains the character U+0000, which the server does not store" }
            return objectProblem(members, maxMembers: maxMembers, maxNameLength: maxNameLength, maxTextLength: maxTextLength)
        case .objectList(let maxCount):
            guard case .array(let items) = value else { return "expected an array of SHA-256 values" }
            if items.count > maxCount { return "has \(items.count) items; at most \(maxCount)" }
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item, isSHA256(text) else {
                    return "item \(index): expected a SHA-256: 64 lower-case hex digits"
                }
            }
            return Set(items).count == items.count ? nil : "lists the same object twice"
        }
    }

    /// The instants a timestamp may be, in milliseconds since 1970: from 1970 to the last millisecond
    /// of the year 9999.
    package static let timestamps: ClosedRange<Int64> = 0...253_402_300_799_999

    /// What is wrong with `text` for a field of at most `maxLength` characters: too long (characters
    /// counted as Unicode code points, as JSON Schema's `maxLength` in Docs/openapi.json counts them,
    /// so one letter with 100,000 combining marks is 100,001, and a name fits in 4 bytes a character),
    /// or a control character but tab and newline; with `isName`, also a direction override
    /// (U+202A–U+202E, U+2066–U+2069) or a line break.
    package static func textProblem(_ text: String, maxLength: Int, isName: Bool = false) -> String? {
        let length = text.unicodeScalars.count
        if length > maxLength { return "is \(length) characters (Unicode code points); at most \(maxLength)" }
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control && (isName || (scalar != "\n" && scalar != "\t")) {
                return "contains the control character U+\(String(scalar.value, radix: 16, uppercase: true))"
            }
            if isName && scalar.isDirectionOverride {
                return "contains U+\(String(scalar.value, radix: 16, uppercase: true)), which changes the direction text is shown in"
            }
        }
        return nil
    }

    /// What is wrong with a flat object's members (``SyncField/Kind/jsonObject(maxMembers:maxNameLength:maxTextLength:)``),
    /// the first problem in the order of the members' names.
    static func objectProblem(_ members: [String: JSONValue], maxMembers: Int, maxNameLength: Int, maxTextLength: Int) -> String? {
        if members.count > maxMembers { return "has \(members.count) members; at most \(maxMembers)" }
        for (name, member) in members.sorted(by: { $0.key < $1.key }) {
            let shown = name.unicodeScalars.count > maxNameLength ? String(String.UnicodeScalarView(name.unicodeScalars.prefix(maxNameLength))) + "…" : name
            if name.unicodeScalars.count > maxNameLength {
                return "member name \"\(shown)\" is \(name.unicodeScalars.count) characters (Unicode code points); at most \(maxNameLength)"
            }
            switch member {
            case .string(let text) where text.unicodeScalars.count > maxTextLength:
                return "member \"\(shown)\" is \(text.unicodeScalars.count) characters (Unicode code points); at most \(maxTextLength)"
            case .array, .object:
                return "member \"\(shown)\": expected text, a number, true, false or null, got \(member.typeName)"
            default:
                continue
            }
        }
        return nil
    }

    /// Whether a string or a key anywhere in `value` holds U+0000.
    package static func holdsNUL(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text): text.utf8.contains(0)
        case .array(let items): items.contains(where: holdsNUL)
        case .object(let members): members.contains { $0.key.utf8.contains(0) || holdsNUL($0.value) }
        default: false
        }
    }

    /// Whether `text` is a media type as RFC 6838 names them, `type/subtype` of letters, digits and
    /// `! # $ & ^ _ . + -` (each part starting with a letter or digit), then optional parameters after
    /// `;` without control characters but tab and newline: at most 100 characters (Docs/openapi.json's pattern).
    package static func isMediaType(_ text: String) -> Bool {
        guard !text.isEmpty, textProblem(text, maxLength: 100) == nil else { return false }
        let parts = text.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        let names = parts[0].split(separator: "/", omittingEmptySubsequences: false)
        func restricted(_ name: Substring) -> Bool {
            func alphanumeric(_ byte: UInt8) -> Bool { (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) }
            guard let first = name.utf8.first, alphanumeric(first) else { return false }
            return name.utf8.allSatisfy { alphanumeric($0) || "!#$&^_.+-".utf8.contains($0) }
        }
        return names.count == 2 && names.allSatisfy(restricted)
    }

    package static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    package static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                if byte != UInt8(ascii: "-") { return false }
            } else if !((48...57).contains(byte) || (97...102).contains(byte)) {
                return false
            }
        }
        return true
    }

    package static func isDeviceID(_ text: String) -> Bool {
        (16...128).contains(text.utf8.count) && text.utf8.allSatisfy {
            (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
    }
}
