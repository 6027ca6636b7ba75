/// A name as people and places are compared: without case, surrounding spaces or runs of spaces
/// (`"  ana   SILVA "` is `Ana Silva`). The hub's people, saved places and the CLI all compare this way.
package enum NameKey {
    /// The comparison key of `name`.
    package static func of(_ name: String) -> String {
        name.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
