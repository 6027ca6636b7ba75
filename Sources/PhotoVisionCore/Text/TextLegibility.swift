import Foundation

/// Decides whether a line of text read from a photo may be quoted to a listener, who cannot tell a
/// misread from the truth (Docs/Vision.md, "Quoting text"). Each word of a line is one of:
///
/// - **checked**: a word of the ``WordList`` (any case, accents optional), or run-together words of
///   it in lower case ("ofgreyvalues" is quoted as "of grey values");
/// - **unchecked**: a number, a price, a time, a date or a quantity ("4:00pm", "$12.99", "500ml"),
///   a code of capitals and digits ("MP3", "A4", "RX-100"), or a name: a capitalised or
///   all-capital word that is in no list ("Annecy");
/// - **unknown**: anything else, such as a word in mixed case ("PIc", "TURESf") or an unknown
///   lower-case word ("houto").
///
/// A line is **legible** when it has no unknown word and the recogniser was sure of each of its
/// characters: those of a word checked against the list at least ``sureCharacter``, those of a
/// word that could not be (a number, a code, a name) at least ``sureName``, since a misread name
/// reads like a name (the line's least sure character stands for every word's when the reader
/// gives no probability for each character). Otherwise it
/// is **partly legible** when the recogniser's mean confidence is at least
/// ``partlyLegibleConfidence`` and at least half of its words were checked: it may be given,
/// marked as such, where a listener asks for everything. The thresholds were chosen from the
/// curve measured on the caption samples (Docs/Vision.md).
public struct TextLegibility: Sendable {
    /// What may be said of a line.
    public enum Verdict: Sendable, Hashable {
        /// Quote it: the text to quote (run-together words split).
        case legible(String)
        /// Only with a warning: the text as read.
        case partlyLegible(String)
        /// Say nothing of it.
        case illegible
    }

    /// The words text is checked against (empty: only numbers, codes and names sure to ``sureName`` pass).
    public var words: WordList
    /// Every character of a quoted word of the list was read with at least this probability.
    public var sureCharacter: Float = 0.6
    /// Every character of a quoted number, code or name was read with at least this probability.
    public var sureName: Float = 0.95
    /// A line of another script than Latin (no word list) is quoted when each character reaches this.
    public var sureOtherScript: Float = 0.9
    /// A line that is not legible is partly legible at this mean confidence or more.
    public var partlyLegibleConfidence: Float = 0.8
    /// Fewer letters or digits than this is not a string worth quoting.
    public var minCharacters = 3

    /// The judge, with `words` (the installed lists by default).
    public init(words: WordList = .installed) {
        self.words = words
    }

    /// What may be said of `line`.
    public func judge(_ line: TextLine) -> Verdict {
        let tokens = Self.words(of: line)
        let text = tokens.map(\.text).joined(separator: " ")
        let letters = text.unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }
        guard letters.count >= minCharacters else { return .illegible }
        // Another script (the recogniser also reads Chinese and Japanese): no word list, the characters decide.
        let latin = letters.filter { $0.value < 0x250 }.count
        if latin * 2 < letters.count {
            if line.weakestCharacter >= sureOtherScript { return .legible(text) }
            return line.confidence >= partlyLegibleConfidence ? .partlyLegible(text) : .illegible
        }
        var quoted: [String] = []
        var good = 0, bad = 0
        // Each word is held to its own standard: a word of the list to sureCharacter (a misread of
        // one is rarely another word), a number, code or name to sureName (a misread one reads like one).
        var sure = true
        for token in tokens {
            let (word, verdict) = judge(word: token.text)
            quoted.append(word)
            switch verdict {
            case .word:
                good += 1
                sure = sure && token.weakest >= sureCharacter
            case .name: sure = sure && token.weakest >= sureName
            case .unknown: bad += 1
            }
        }
        if bad == 0, sure { return .legible(quoted.joined(separator: " ")) }
        if line.confidence >= partlyLegibleConfidence, good * 2 >= tokens.count, good > 0 { return .partlyLegible(text) }
        return .illegible
    }

    /// The whitespace-separated words of `line`, each with its least sure character's probability
    /// (the line's when the reader gave no probability for each character).
    static func words(of line: TextLine) -> [(text: String, weakest: Float)] {
        let known = line.characterProbabilities.count == line.text.count
        var words: [(text: String, weakest: Float)] = []
        var word = "", weakest = Float.infinity
        for (index, character) in line.text.enumerated() {
            if character.isWhitespace {
                if !word.isEmpty { words.append((word, known ? weakest : line.weakestCharacter)) }
                word = ""
                weakest = .infinity
                continue
            }
            word.append(character)
            if known { weakest = min(weakest, line.characterProbabilities[index]) }
        }
        if !word.isEmpty { words.append((word, known ? weakest : line.weakestCharacter)) }
        return words
    }

    /// How a word reads: checked against the list, unchecked (a number, a code, a name), unknown.
    enum WordVerdict { case word, name, unknown }

    /// A whitespace-separated token as it is to be quoted, and how it reads.
    func judge(word token: String) -> (String, WordVerdict) {
        // Punctuation around a word is not part of it: "(Paris)," is "Paris".
        let edges: Set<Character> = ["(", ")", "[", "]", "{", "}", "\"", "'", ",", ".", ";", ":", "!", "?", "«", "»", "“", "”", "‘", "’", "*", "-", "–", "—"]
        let core = String(token.drop { edges.contains($0) }.reversed().drop { edges.contains($0) }.reversed())
        guard !core.isEmpty else { return (token, .word) }
        if Self.isNumber(core) || Self.isCode(core) { return (token, .name) }
        // A word with inner hyphens, apostrophes, slashes, dots or signs: each part on its own.
        let parts = core.split(omittingEmptySubsequences: false) { "-'’/.&+=".contains($0) }
        guard !parts.contains(where: \.isEmpty) || parts.count == 1 else { return (token, .unknown) }
        var verdict = WordVerdict.word
        var rewritten = core
        for part in parts.map(String.init) {
            if Self.isNumber(part) || Self.isCode(part) {
                verdict = .name
                continue
            }
            switch judge(letters: part) {
            case .word: continue
            case .split(let pieces): rewritten = rewritten.replacingOccurrences(of: part, with: pieces.joined(separator: " "))
            case .name: verdict = .name
            case .unknown: return (token, .unknown)
            }
        }
        return (token.replacingOccurrences(of: core, with: rewritten), verdict)
    }

    enum PartVerdict { case word, split([String]), name, unknown }

    /// A run of letters: a word, run-together words, a name, or none of these.
    func judge(letters part: String) -> PartVerdict {
        guard part.allSatisfy(\.isLetter) else { return .unknown }
        let isLower = part.allSatisfy(\.isLowercase)
        let isUpper = part.allSatisfy(\.isUppercase)
        let isCapitalised = part.first?.isUppercase == true && part.dropFirst().allSatisfy(\.isLowercase)
        // "iPod", "McDonald": a mixed case the list itself spells.
        guard isLower || isUpper || isCapitalised || words.containsExactly(part) else { return .unknown }
        if part.count == 1 { return "aAiI".contains(part) ? .word : .name }
        if words.contains(part) { return .word }
        if isLower { return words.split(part).map(PartVerdict.split) ?? .unknown }
        return .name
    }

    /// Digits with the signs of a number, a price, a time, a date or a measure, and at most three
    /// letters at the end for its unit ("4.00pm", "500ml", "3rd", "12%", "$9.99", "2019-07-14").
    static func isNumber(_ word: String) -> Bool {
        var scalars = Substring(word)
        while let first = scalars.first, "$€£¥#+−-~≈".contains(first) { scalars = scalars.dropFirst() }
        let unit = scalars.reversed().prefix { $0.isLetter || $0 == "%" || $0 == "°" }
        guard unit.count <= 3 else { return false }
        let body = scalars.dropLast(unit.count)
        guard let first = body.first, first.isASCII, first.isNumber, let last = body.last, last.isASCII, last.isNumber else { return false }
        return body.allSatisfy { ($0.isASCII && $0.isNumber) || ".,:/-'h".contains($0) }
    }

    /// Capitals and digits, with at least one of each, 2 to 10 long, dashes or dots between ("MP3", "A4", "RX-100").
    static func isCode(_ word: String) -> Bool {
        guard (2...10).contains(word.count), word.contains(where: \.isNumber), word.contains(where: \.isLetter) else { return false }
        return word.allSatisfy { ($0.isASCII && ($0.isNumber || $0.isUppercase)) || $0 == "-" || $0 == "." }
    }
}

extension WordList {
    /// Whether the list holds `word` with exactly its capitals (for a mixed case such as "iPod").
    func containsExactly(_ word: String) -> Bool {
        // The list is folded; a mixed-case word is accepted when its folded form is a word and it
        // starts lower case then has a capital ("iPod", "eBay") or is a Mc/Mac name.
        guard contains(word) else { return false }
        return (word.first?.isLowercase == true && word.dropFirst().first?.isUppercase == true) || word.hasPrefix("Mc") || word.hasPrefix("Mac")
    }
}
