internal import Foundation

/// A name as people and places are compared: without case, surrounding spaces or runs of spaces
/// (`"  ana   SILVA "` is `Ana Silva`), in Unicode's composed form (NFC: "José" typed with a combining
/// accent is the same key, byte for byte, as "José" typed with "é", since databases compare bytes).
/// The hub's people, saved places and the CLI all compare this way.
package enum NameKey {
    /// The comparison key of `name`.
    package static func of(_ name: String) -> String {
        name.lowercased().precomposedStringWithCanonicalMapping.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
