extension Unicode.Scalar {
    /// Whether this scalar embeds, overrides or isolates the direction text is shown in (U+202A–U+202E,
    /// U+2066–U+2069): in a name it can make a screen or a listing show other text than is stored
    /// ("Trojan Source"). The direction marks U+200E and U+200F, which right-to-left text needs, are not.
    package var isDirectionOverride: Bool {
        switch value {
        case 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
