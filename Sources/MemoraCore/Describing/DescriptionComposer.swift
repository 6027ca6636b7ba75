import Foundation
internal import PhotoVision
internal import PhotoVisionCore

/// The on-device description, written from ``PhotoFacts`` alone: who (names from the metadata, the
/// rest counted), what (the scene model's subject), where and when (the metadata), and the text in
/// the photo, quoted (W3C WAI: when an image holds text, the text belongs in its alt text).
///
/// - The **caption** says all of it in a sentence or two: "Ana and two other people with a dog in
///   Porto, Portugal, July 2019. Text in the photo reads "Praia da Luz"."
/// - The **alt text** keeps the most important part within ``altTextTarget`` characters where the
///   content allows (IPTC's Alt Text (Accessibility) guidance), never more than ``altTextLimit``.
/// - The **extended description** holds what the alt text leaves out: every line of text read, the
///   colours and the light.
///
/// Nothing is invented: with no fact about the content it says so plainly instead of guessing.
public enum DescriptionComposer {
    /// The length an alt text aims at (IPTC: about 125 characters).
    public static let altTextTarget = 125
    /// The longest alt text (IPTC: never over 250 characters).
    public static let altTextLimit = 250
    /// Text lines read with less confidence are not quoted.
    public static let minTextConfidence: Float = 0.75
    /// Text strings shorter than this (letters and digits) are not quoted.
    public static let minTextCharacters = 3
    /// The most text strings the caption quotes (the extended description quotes all).
    static let captionQuotes = 5

    static let numberWords = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]

    /// The caption, the alt text and the extended description (nil when it would repeat the caption).
    public static func compose(_ facts: PhotoFacts) -> (caption: String, altText: String, extended: String?) {
        let who = people(facts)
        let quoted = quotable(facts.text)
        // The lines for the alt text: in reading order (a sign's or a page's title comes first), the
        // fine print (lines under half the tallest one's height) left to the extended description.
        let tallest = quoted.map(\.height).max() ?? 0
        let prominent = quoted.filter { $0.height >= tallest / 2 }.map(\.text)
        let onlyText = who == nil && facts.subject == nil && !quoted.isEmpty
        var what: String
        if let who {
            what = who
            if let subject = facts.subject { what += " with " + subject.withArticle }
        } else if let subject = facts.subject {
            what = subject.withArticle
        } else {
            what = onlyText ? "text" : "a scene Memora's models do not recognise"
        }
        var lead = capitalised(what)
        if let place = facts.place { lead += " in \(place)" }
        let dated = facts.monthAndYear.map { lead + ", \($0)" } ?? lead

        var caption: String
        if onlyText {
            // Text and nothing else known: the text is the description ("Text: "A", "B".").
            caption = dated + ": " + list(Array(quoted.map(\.text).prefix(captionQuotes))) + "."
        } else {
            caption = dated + "."
            if !quoted.isEmpty { caption += " " + textSentence(Array(quoted.map(\.text).prefix(captionQuotes))) }
            if who == nil, facts.subject == nil, let colors = colorWords(facts) { caption = dated + ", " + colors + "." }
        }

        // The alt text: who or what and where, then as much quoted text as fits the target.
        var altText = lead + "."
        if altText.count > altTextTarget { altText = shortened(lead, to: altTextTarget) }
        for count in stride(from: min(prominent.count, 3), through: 1, by: -1) {
            let strings = Array(prominent.prefix(count))
            let candidate = onlyText ? lead + ": " + list(strings) + "." : altText + " " + textSentence(strings)
            if candidate.count <= altTextTarget {
                altText = candidate
                break
            }
        }
        if altText.count > altTextLimit { altText = shortened(altText, to: altTextLimit) }

        var extended = caption
        if quoted.count > captionQuotes { extended += " All the text read: " + quoted.map { "\"\($0.text)\"" }.joined(separator: ", ") + "." }
        if facts.faceCount > 0, who != nil, !facts.names.isEmpty, facts.faceCount > facts.names.count {
            extended += " \(capitalised(number(facts.faceCount))) faces in all."
        }
        if let colors = colorWords(facts), !caption.contains(colors) { extended += " " + capitalised(colors) + "." }
        return (caption, altText, extended == caption ? nil : extended)
    }

    /// "Ana", "Ana and Ben", "Ana, Ben and two other people", "one person", "three people"; nil for nobody.
    static func people(_ facts: PhotoFacts) -> String? {
        let names = Array(facts.names.prefix(3))
        let unnamed = max(0, facts.faceCount - facts.names.count) + max(0, facts.names.count - 3)
        var parts = names
        if unnamed > 0 {
            if parts.isEmpty {
                parts.append(unnamed == 1 ? "one person" : "\(number(unnamed)) people")
            } else {
                parts.append(unnamed == 1 ? "one other person" : "\(number(unnamed)) other people")
            }
        }
        switch parts.count {
        case 0: return nil
        case 1: return parts[0]
        default: return parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
        }
    }

    /// The lines worth quoting: sure enough, long enough, each once.
    static func quotable(_ lines: [TextLine]) -> [TextLine] {
        var seen = Set<String>()
        return lines.compactMap { line in
            var line = line
            line.text = line.text.replacingOccurrences(of: "\"", with: "'").split(whereSeparator: \.isWhitespace).joined(separator: " ")
            let characters = line.text.unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }.count
            guard line.confidence >= minTextConfidence, characters >= minTextCharacters, seen.insert(line.text.lowercased()).inserted else { return nil }
            return line
        }
    }

    /// `Text in the photo reads "A".` / `... reads "A", "B" and "C".`
    static func textSentence(_ strings: [String]) -> String {
        "Text in the photo reads \(list(strings))."
    }

    /// `"A"`, `"A" and "B"`, `"A", "B" and "C"`.
    static func list(_ strings: [String]) -> String {
        let quoted = strings.map { "\"\($0)\"" }
        return quoted.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " and " + quoted[quoted.count - 1]
    }

    static func colorWords(_ facts: PhotoFacts) -> String? {
        let light = facts.isDark ? "dark, " : ""
        switch facts.colors.count {
        case 0: return facts.isDark ? "dark" : nil
        case 1: return light + "mostly \(facts.colors[0])"
        default: return light + "mostly \(facts.colors[0]) and \(facts.colors[1])"
        }
    }

    static func number(_ value: Int) -> String { numberWords.indices.contains(value) ? numberWords[value] : String(value) }

    static func capitalised(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }

    /// `text` cut at a word boundary to at most `limit` characters, ending with "…".
    static func shortened(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        var cut = String(text.prefix(limit - 1))
        if let space = cut.lastIndex(of: " ") { cut = String(cut[..<space]) }
        return cut.trimmingCharacters(in: CharacterSet(charactersIn: " ,;:")) + "…"
    }
}
