import Foundation
internal import PhotoVision
public import PhotoVisionCore

/// The on-device description, written from ``PhotoFacts`` alone: who (names from the metadata, the
/// rest counted), what (the scene model's subject, or the kind of picture), where and when (the
/// metadata), and the text in the photo, quoted (W3C WAI: when an image holds text, the text belongs
/// in its alt text).
///
/// - The **caption** says all of it in a sentence or two: "Ana and two other people with a dog in
///   Porto, Portugal, July 2019. Text in the photo reads "Praia da Luz"."
/// - The **alt text** keeps the most important part within ``altTextTarget`` characters where the
///   content allows (IPTC's Alt Text (Accessibility) guidance), never more than ``altTextLimit``.
/// - The **extended description** adds what the alt text leaves out and never repeats it: the rest
///   of the legible text, the text that is only partly legible (marked so), the number of faces,
///   the colours and the light.
///
/// Only text that PhotoVisionCore's `TextLegibility` judges legible is quoted (a listener cannot tell a misread from
/// the truth). Nothing is invented: with no fact about the content it gives the kind of picture, its
/// light and colours, in a reader's words.
public enum DescriptionComposer {
    /// The length an alt text aims at (IPTC: about 125 characters).
    public static let altTextTarget = 125
    /// The longest alt text (IPTC: never over 250 characters).
    public static let altTextLimit = 250
    /// The most text strings the caption quotes (the extended description quotes the rest).
    static let captionQuotes = 5
    /// The most partly legible strings the extended description gives.
    static let partlyLegibleQuotes = 5

    static let numberWords = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]

    /// The lines of a photo's text sorted by what may be said of them.
    struct JudgedText {
        /// Legible lines, in reading order, as they are to be quoted, with their height.
        var legible: [(text: String, height: Double)] = []
        /// Partly legible lines, as read.
        var partlyLegible: [String] = []
    }

    /// The caption, the alt text and the extended description (nil when it would add nothing).
    /// `legibility` judges the text (nil: with the installed word lists, loaded only when there is text).
    public static func compose(_ facts: PhotoFacts, legibility: TextLegibility? = nil) -> (caption: String, altText: String, extended: String?) {
        let who = people(facts)
        let text = judge(facts.text, with: legibility)
        let quoted = text.legible
        // The lines for the alt text: in reading order (a sign's or a page's title comes first), the
        // fine print (lines whose letters are under half as tall as the tallest's) left to the extended description.
        let tallest = quoted.map(\.height).max() ?? 0
        let prominent = quoted.filter { $0.height >= tallest / 2 }.map(\.text)
        let kind = facts.kind
        // A page or a screenshot is what it is wherever it was photographed: no setting is said of it.
        let isPage = kind == .printedPage || kind == .handwrittenPage || kind == .screenshot
        let onlyText = who == nil && facts.subject == nil && facts.setting == nil && !quoted.isEmpty && !isPage
        var what: String
        // A subject the scene model is not sure of is said as a possibility, so that the listener
        // knows to doubt it: "Possibly an oil rig.", "Ana and Ben, possibly with a fence".
        let doubt = facts.subject.map { $0.isSure ? "" : ", possibly" } ?? ""
        if kind == .screenshot {
            // What a screenshot shows is on the screen: "A screenshot of two people", "… of a web site".
            what = PictureKind.screenshot.words
            if let who { what += " of " + who } else if let subject = facts.subject { what += doubt + " of " + subject.withArticle }
        } else if let who {
            what = who
            if let subject = facts.subject { what += doubt + " with " + subject.withArticle }
        } else if let subject = facts.subject {
            what = (subject.isSure ? "" : "possibly ") + subject.withArticle
        } else if let kind {
            what = kind.words
        } else if facts.setting != nil {
            what = "a scene"
        } else {
            what = onlyText ? "text" : pictureWords(facts)
        }
        if let setting = facts.setting, !isPage { what += " " + setting }
        if kind == .blackAndWhite, who != nil || facts.subject != nil { what += ", in black and white" }
        var lead = capitalised(what)
        if let place = facts.place { lead += " in \(place)" }
        let dated = facts.monthAndYear.map { lead + ", \($0)" } ?? lead

        let captionStrings = Array(quoted.map(\.text).prefix(captionQuotes))
        var caption: String
        if onlyText {
            // Text and nothing else known: the text is the description ("Text: "A", "B".").
            caption = dated + ": " + list(captionStrings) + "."
        } else {
            caption = dated + "."
            if !quoted.isEmpty { caption += " " + textSentence(captionStrings, kind: kind) }
        }

        // The alt text: who or what and where, then as much quoted text as fits the target.
        var altText = lead + "."
        if altText.count > altTextTarget { altText = shortened(lead, to: altTextTarget) }
        // In reading order, as many prominent strings as fit, at most three. A string too long to
        // fit even alone is passed over, so that it does not keep the shorter ones after it out.
        var inAltText: [String] = []
        let before = altText
        func sentence(_ strings: [String]) -> String {
            onlyText ? lead + ": " + list(strings) + "." : before + " " + textSentence(strings, kind: kind)
        }
        for string in prominent where inAltText.count < 3 {
            if sentence(inAltText + [string]).count <= altTextTarget {
                inAltText.append(string)
                altText = sentence(inAltText)
            } else if sentence([string]).count <= altTextTarget {
                break
            }
        }
        if altText.count > altTextLimit { altText = shortened(altText, to: altTextLimit) }

        // The extended description: only what the alt text leaves out.
        var extended: [String] = []
        if facts.monthAndYear != nil, !altText.contains(facts.monthAndYear!) { extended.append("Taken \(facts.monthAndYear!).") }
        let rest = quoted.map(\.text).filter { !inAltText.contains($0) }
        if !rest.isEmpty { extended.append(inAltText.isEmpty ? textSentence(rest, kind: kind) : "More text reads " + list(rest) + ".") }
        if !text.partlyLegible.isEmpty {
            extended.append("Partly legible: " + list(Array(text.partlyLegible.prefix(partlyLegibleQuotes))) + ".")
        }
        if facts.faceCount > 0, who != nil, !facts.names.isEmpty, facts.faceCount > facts.names.count {
            extended.append("\(capitalised(number(facts.faceCount))) faces in all.")
        }
        if what != pictureWords(facts), let colors = colorWords(facts) { extended.append(capitalised(colors) + ".") }
        return (caption, altText, extended.isEmpty ? nil : extended.joined(separator: " "))
    }

    /// The legible and the partly legible lines of `lines`, each once (the first reading of a string
    /// kept). Legible lines stacked as one sign's or label's are one string (``TextLayout``); a line
    /// of the block that is not legible breaks it, so that no string joins words a line stood between.
    static func judge(_ lines: [TextLine], with given: TextLegibility?) -> JudgedText {
        var judged = JudgedText()
        guard !lines.isEmpty else { return judged }
        let legibility = given ?? TextLegibility()
        let verdicts = lines.map { line in
            var line = line
            line.text = line.text.replacingOccurrences(of: "\"", with: "'")
            return legibility.judge(line)
        }
        var seen = Set<String>()
        func keep(_ text: String, height: Double) {
            if seen.insert(text.lowercased()).inserted { judged.legible.append((text, height)) }
        }
        for block in TextLayout.blocks(lines) {
            // A run of legible lines of one block is quoted as one string; a line that is not legible ends it.
            var run: [(text: String, height: Double)] = []
            func flush() {
                if !run.isEmpty { keep(run.map(\.text).joined(separator: " "), height: run.map(\.height).max() ?? 0) }
                run = []
            }
            for index in block {
                switch verdicts[index] {
                case .legible(let text):
                    run.append((text, lines[index].letterHeight))
                    continue
                case .partlyLegible(let text) where seen.insert(text.lowercased()).inserted: judged.partlyLegible.append(text)
                default: break
                }
                flush()
            }
            flush()
        }
        return judged
    }

    /// A picture nothing is known of, in its light and colours: "a dark picture, mostly blue",
    /// "a picture in grey and white".
    static func pictureWords(_ facts: PhotoFacts) -> String {
        let light = facts.isDark ? "a dark picture" : "a picture"
        switch facts.colors.count {
        case 0: return light
        case 1: return light + " in \(facts.colors[0])"
        default: return light + " in \(facts.colors[0]) and \(facts.colors[1])"
        }
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

    /// `Text in the photo reads "A".` / `... reads "A", "B" and "C".`
    static func textSentence(_ strings: [String], kind: PictureKind?) -> String {
        // A screenshot is no photo: its text is simply the text.
        (kind == .screenshot ? "Text reads " : "Text in the photo reads ") + list(strings) + "."
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
