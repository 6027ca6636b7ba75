/// One field of a synced collection: its name, what values it takes, and whether it is required.
public struct SyncField: Sendable, Hashable {
    /// What values a field takes. Every kind is checked by ``SyncCollection/validate(_:path:keyOnly:)``.
    public enum Kind: Sendable, Hashable {
        /// UTF-8 text of at most `maxLength` characters, without control characters but tab and newline.
        case text(maxLength: Int)
        /// A lower-case UUID (`8-4-4-4-12` hex digits), as made by a device for a new record.
        case identifier
        /// A device's own identifier (16–128 characters of letters, digits, `-` and `_`).
        case deviceID
        /// A SHA-256 in 64 lower-case hex digits (a photo's content hash).
        case sha256
        /// One of the listed words.
        case choice([String])
        /// An integer in the range.
        case integer(ClosedRange<Int64>)
        /// A number in the range.
        case real(ClosedRange<Double>)
        /// `true` or `false`.
        case boolean
        /// Milliseconds since 1970 as a device saw them (information only: the protocol never orders by it).
        case timestamp
        /// A flat JSON object (Docs/openapi.json's `maxProperties`, `propertyNames` and
        /// `additionalProperties`): at most `maxMembers` members, each name at most `maxNameLength`
        /// characters, each value text of at most `maxTextLength` characters, a number, a boolean or
        /// null; no U+0000 anywhere. Characters are Unicode code points.
        case jsonObject(maxMembers: Int, maxNameLength: Int, maxTextLength: Int)
        /// A list of at most `maxCount` SHA-256 values, each an uploaded object (a photo).
        case objectList(maxCount: Int)
    }

    /// The field's name on the wire and its column's name in the server's tables.
    public let name: String
    /// What values it takes.
    public let kind: Kind
    /// Whether a `put` must give it (non-null).
    public let required: Bool

    /// Creates a field.
    public init(_ name: String, _ kind: Kind, required: Bool = false) {
        self.name = name
        self.kind = kind
        self.required = required
    }
}
