/// How the lines read from a photo sit together: lines stacked one under the other as one sign's
/// or one label's ("TRUCK" over "SCHOOL", "recoge aquí" over "tu invitación") are one phrase, and a
/// listener should hear them as one ("TRUCK SCHOOL"), not as unrelated words.
public enum TextLayout {
    /// The most lines one block holds (a sign, a label); a longer run is a page's paragraph, quoted line by line.
    public static let maxBlockLines = 4
    /// The most words a line of a block holds: a sign's lines are short; a page's are sentences,
    /// quoted line by line (an alt text has room for a line, not for a paragraph).
    public static let maxBlockLineWords = 4

    /// `lines` (in reading order) grouped into blocks: each block the indices of lines stacked one
    /// under the next, top to bottom; a line stacked with no other is a block of its own. The
    /// blocks come in the order of their first lines.
    ///
    /// A line continues the block of the line above it when both are short (at most
    /// ``maxBlockLineWords`` words) and in one style (all capitals, or not), about as tall (within
    /// 1.4x), the lower one starts within 0.6 of a line's height under the upper one (or overlaps
    /// it by at most 0.3 of one: the detector's boxes touch), and they are aligned left or centred
    /// (within 15% of the narrower line's width). A line whose box starts inside the one above is a
    /// different size or a different line of print, never the next line of a block; so is a line
    /// aligned only on the right, which on a photo is far more often a word beside a missed one.
    public static func blocks(_ lines: [TextLine]) -> [[Int]] {
        var used = Set<Int>()
        var blocks: [[Int]] = []
        for start in lines.indices where !used.contains(start) {
            var block = [start]
            used.insert(start)
            var last = start
            // The next line is the nearest one below that shares some of the line's width: when
            // that one is not stacked with it, the block ends (a block never skips a line).
            while block.count < maxBlockLines {
                let upper = lines[last]
                let below = lines.indices.filter {
                    $0 != last && lines[$0].y > upper.y && lines[$0].x < upper.x + upper.width && upper.x < lines[$0].x + lines[$0].width
                }
                guard let next = below.min(by: { lines[$0].y < lines[$1].y }), !used.contains(next), isStacked(lines[next], under: upper) else { break }
                block.append(next)
                used.insert(next)
                last = next
            }
            blocks.append(block)
        }
        return blocks
    }

    /// Whether `lower` is the next line of `upper`'s block (``blocks(_:)``).
    public static func isStacked(_ lower: TextLine, under upper: TextLine) -> Bool {
        let smaller = min(lower.height, upper.height), larger = max(lower.height, upper.height)
        guard smaller > 0, larger <= smaller * 1.4 else { return false }
        let gap = lower.y - (upper.y + upper.height)
        guard gap >= -0.3 * smaller, gap <= 0.6 * smaller else { return false }
        let narrower = min(lower.width, upper.width)
        guard narrower > 0 else { return false }
        // One sign's lines share a style: capitals over capitals, lower case over lower case
        // ("Shuffle Songs" on an iPod's screen is not one phrase with "MENU" on its wheel).
        guard isCapitals(lower.text) == isCapitals(upper.text) else { return false }
        guard words(lower.text) <= maxBlockLineWords, words(upper.text) <= maxBlockLineWords else { return false }
        let leftAligned = abs(lower.x - upper.x) <= 0.15 * narrower
        let centred = abs((lower.x + lower.width / 2) - (upper.x + upper.width / 2)) <= 0.15 * narrower
        return leftAligned || centred
    }

    /// The number of words of `text`.
    static func words(_ text: String) -> Int {
        text.split(whereSeparator: \.isWhitespace).count
    }

    /// Whether every letter of `text` is a capital (a line with no letter counts as capitals: "1999").
    static func isCapitals(_ text: String) -> Bool {
        !text.contains { $0.isLetter && !$0.isUppercase }
    }
}
