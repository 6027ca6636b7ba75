import Foundation

/// Cleans what a model returns into a caption a screen reader can use: the rules every
/// description meets, whichever generator wrote it (Docs/Captioning.md, "The rules").
///
/// In order: drop Markdown (emphasis, headings, list marks, code marks), trim and collapse white
/// space and line breaks, drop wrapping quotes, remove known artefacts (BLIP's "arafed", a chatty
/// "Sure! Here is a description of the image:", a leading "there is", "an image of", "a photo of"
/// and their kin), collapse a word repeated back to back, drop a cut-off last sentence,
/// capitalise, and end with a full stop. The alt text is the longest prefix of whole sentences
/// within ``altTextLimit`` characters (IPTC's 125; or the first sentence shortened at a word
/// boundary); the full description is kept too, and is the extended description when the alt text
/// is shorter.
public enum CaptionPostProcessor {
    /// The longest alt text, in characters (IPTC's Alt Text (Accessibility) guidance: about 125).
    public static let altTextLimit = 125

    /// Artefact words some captioning models emit (BLIP's tokeniser quirks).
    static let artefactWords: Set<String> = ["arafed", "araffe", "arafe", "arafly", "arrafed", "araffes"]

    /// Chatty openings of instruction-tuned models, dropped with what follows up to a colon or a full stop.
    static let chattyOpenings = [
        "sure! here is a description of the image", "sure! here's a description of the image", "sure, here is a description of the image",
        "here is a description of the image", "here's a description of the image", "here is a description of the photo",
        "here's a description of the photo", "here is a description", "here's a description", "certainly! here is a description",
        "sure! here is", "sure, here is", "certainly!", "sure!", "description:", "alt text:", "caption:",
    ]

    /// Openings that describe the medium instead of the content, longest first.
    static let mediumOpenings = [
        "this is an image of", "this is a photo of", "this is a picture of", "this is a photograph of",
        "this image shows", "this photo shows", "this picture shows", "this photograph shows",
        "the image shows", "the photo shows", "the picture shows", "the photograph shows",
        "this image depicts", "the image depicts", "an image of", "a photo of", "a picture of",
        "a photograph of", "an photo of", "image of", "photo of", "picture of", "photograph of",
        "there is an", "there is a", "there are", "there is",
    ]

    /// Words a shortened alt text must not end on.
    static let danglingWords: Set<String> = ["a", "an", "the", "and", "or", "with", "of", "in", "on", "at", "to", "for", "by", "from", "while", "as", "is", "are"]

    /// Cleans `raw` into a full description and an alt text. Returns nil when nothing usable is left.
    public static func process(_ raw: String) -> (description: String, altText: String)? {
        var text = removingMarkdown(raw).replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        text = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        text = stripWrappingQuotes(text)
        var words = text.split(separator: " ").map(String.init)
        words.removeAll { artefactWords.contains(normalised($0)) }
        words = collapsingRepeats(words)
        text = words.joined(separator: " ")
        text = removingChattyOpening(text)
        text = removingMediumOpening(text)
        text = droppingCutOffSentence(text)
        text = text.trimmingCharacters(in: CharacterSet(charactersIn: " ,;:-"))
        guard text.contains(where: { $0.isLetter || $0.isNumber }) else { return nil }
        text = capitalisingFirstLetter(text)
        if let last = text.last, !".!?".contains(last) { text += "." }
        return (text, altText(from: text))
    }

    /// The alt text for a cleaned description.
    static func altText(from description: String) -> String {
        guard description.count > altTextLimit else { return description }
        var result = ""
        for sentence in sentences(of: description) {
            let candidate = result.isEmpty ? sentence : result + " " + sentence
            if candidate.count > altTextLimit { break }
            result = candidate
        }
        if !result.isEmpty { return result }
        // The first sentence alone is too long: cut at a word boundary.
        var words: [Substring] = []
        var length = 0
        for word in description.split(separator: " ") {
            if length + word.count + (words.isEmpty ? 0 : 1) > altTextLimit - 1 { break }
            length += word.count + (words.isEmpty ? 0 : 1)
            words.append(word)
        }
        while let last = words.last, words.count > 1, danglingWords.contains(normalised(String(last))) { words.removeLast() }
        var cut = words.joined(separator: " ").trimmingCharacters(in: CharacterSet(charactersIn: " ,;:-"))
        if cut.isEmpty { cut = String(description.prefix(altTextLimit - 1)) }
        return cut + "."
    }

    /// `raw` without Markdown: `**`, `__`, `*`, `_` emphasis and backticks around words, `#` headings
    /// and `-`, `*`, `1.` list marks at the start of lines; the words are kept.
    static func removingMarkdown(_ raw: String) -> String {
        var lines: [String] = []
        for line in raw.split(separator: "\n", omittingEmptySubsequences: false) {
            var text = line.trimmingCharacters(in: .whitespaces)
            // A heading is a label ("## Description"), not part of the description.
            let hashes = text.prefix { $0 == "#" }.count
            if (1...6).contains(hashes), text.dropFirst(hashes).first.map({ $0 == " " }) ?? true { continue }
            var item = false
            for mark in ["- ", "* ", "+ ", "> "] where text.hasPrefix(mark) {
                text.removeFirst(mark.count)
                item = true
            }
            if let dot = text.firstIndex(of: "."), text[..<dot].allSatisfy(\.isNumber), !text[..<dot].isEmpty,
               text[text.index(after: dot)...].hasPrefix(" ") {
                text = String(text[text.index(dot, offsetBy: 2)...])
                item = true
            }
            // List items become sentences.
            if item, let last = text.last, !".!?:;".contains(last) { text += "." }
            lines.append(text)
        }
        var text = lines.joined(separator: "\n")
        for mark in ["**", "__", "`"] { text = text.replacingOccurrences(of: mark, with: "") }
        // Single * or _ around words (emphasis), not inside words (snake_case, 3*4).
        var result = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            if character == "*" || character == "_" {
                let before = index > 0 ? characters[index - 1] : " ", after = index + 1 < characters.count ? characters[index + 1] : " "
                if !(before.isLetter || before.isNumber) || !(after.isLetter || after.isNumber) { continue }
            }
            result.append(character)
        }
        return result
    }

    static func removingChattyOpening(_ text: String) -> String {
        var text = text
        var changed = true
        while changed {
            changed = false
            let lower = text.lowercased()
            for opening in chattyOpenings where lower.hasPrefix(opening) {
                var rest = Substring(text.dropFirst(opening.count))
                // "... of this photo: A dog": the opening runs to its colon, when one comes soon.
                if opening.contains("description"), let colon = rest.prefix(40).firstIndex(of: ":"), !rest[..<colon].contains(".") {
                    rest = rest[rest.index(after: colon)...]
                } else if let first = rest.first, ".".contains(first) {
                    rest = rest.dropFirst()
                }
                text = rest.trimmingCharacters(in: .whitespaces)
                changed = true
                break
            }
        }
        return text
    }

    /// Splits at sentence ends (".", "!", "?" followed by a space).
    static func sentences(of text: String) -> [String] {
        var result: [String] = []
        var current = ""
        var previous: Character?
        for character in text {
            if character == " ", let previous, ".!?".contains(previous) {
                result.append(current)
                current = ""
                continue
            }
            current.append(character)
            previous = character
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    static func normalised(_ word: String) -> String {
        word.lowercased().trimmingCharacters(in: .punctuationCharacters)
    }

    static func stripWrappingQuotes(_ text: String) -> String {
        let pairs: [(Character, Character)] = [("\"", "\""), ("\u{201C}", "\u{201D}"), ("'", "'")]
        for (open, close) in pairs where text.count >= 2 && text.first == open && text.last == close {
            let inner = text.dropFirst().dropLast()
            if !inner.contains(open) && !inner.contains(close) { return String(inner).trimmingCharacters(in: .whitespaces) }
        }
        return text
    }

    /// "a dog dog on the the beach" -> "a dog on the beach" (case-insensitive, punctuation ignored).
    static func collapsingRepeats(_ words: [String]) -> [String] {
        var result: [String] = []
        for word in words {
            if let last = result.last, normalised(last) == normalised(word), !normalised(word).isEmpty,
               last.last.map({ !".!?,".contains($0) }) ?? true {
                result[result.count - 1] = word
                continue
            }
            result.append(word)
        }
        return result
    }

    static func removingMediumOpening(_ text: String) -> String {
        var text = text
        var changed = true
        while changed {
            changed = false
            let lower = text.lowercased()
            for opening in mediumOpenings where lower.hasPrefix(opening + " ") {
                text = String(text.dropFirst(opening.count + 1))
                // "there is a dog" keeps its article: "A dog".
                if opening.hasPrefix("there is a") || opening == "there are" {
                    text = (opening == "there is an" ? "an " : opening == "there is a" ? "a " : "") + text
                }
                changed = true
                break
            }
        }
        return text
    }

    /// Drops a last sentence that stops mid-way when an earlier one is complete.
    static func droppingCutOffSentence(_ text: String) -> String {
        let parts = sentences(of: text)
        guard parts.count > 1, let last = parts.last, let end = last.last, !".!?\"\u{201D})".contains(end) else { return text }
        return parts.dropLast().joined(separator: " ")
    }

    static func capitalisingFirstLetter(_ text: String) -> String {
        guard let index = text.firstIndex(where: { $0.isLetter }) else { return text }
        // Only when the first letter starts the text (after quotes or brackets at most).
        guard text[text.startIndex..<index].allSatisfy({ "\"'(\u{201C}".contains($0) }) else { return text }
        return text.replacingCharacters(in: index...index, with: text[index].uppercased())
    }
}
