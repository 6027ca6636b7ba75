import Foundation

/// A Hunspell dictionary (a `.dic` list of stems and the `.aff` rules that inflect them, as
/// Debian's `hunspell-*` packages install them in `/usr/share/hunspell`), read far enough to tell
/// whether a word is one of its words: a stem alone, or with a prefix, a suffix, both (where the
/// rules allow the pair), or two suffixes (where the first allows the second). A plain word list
/// lacks most inflected forms ("recoge" of "recoger"); these rules have them.
///
/// Compounds and circumfixes are not followed, so a word formed only that way is not found. Words
/// are matched in lower case, accents kept: the rules add and strip accented letters.
struct HunspellDictionary: Sendable {
    /// One prefix or suffix rule: `strip` is taken off the stem and what the rule adds (the key it
    /// is indexed by) put on, where the stem meets `condition` (at its start for a prefix, its end for a suffix).
    struct Affix: Sendable {
        var flag: UInt32
        var crossProduct: Bool
        var strip: [Character]
        var condition: [Condition]
        /// The flags of the affixes that may follow this one (two-level suffixes).
        var continuation: [UInt32]
    }

    /// One character of an affix's condition: any character, or one of (or none of) a set.
    enum Condition: Sendable {
        case any
        case oneOf(Set<Character>, negated: Bool)

        func matches(_ character: Character) -> Bool {
            switch self {
            case .any: true
            case .oneOf(let set, let negated): set.contains(character) != negated
            }
        }
    }

    /// Each stem (lower case) and its flags.
    private let stems: [String: [UInt32]]
    /// The rules by what they add (lower case), suffixes and prefixes.
    private let suffixes: [String: [Affix]], prefixes: [String: [Affix]]
    private let longestSuffix: Int, longestPrefix: Int
    /// Flags that keep a stem from being a word alone (`NEEDAFFIX`, `ONLYINCOMPOUND`, `FORBIDDENWORD`).
    private let notAlone: Set<UInt32>
    /// A stem or affix with this flag is not a word (`FORBIDDENWORD`).
    private let forbidden: UInt32?

    /// How the flags of a dictionary are written (`FLAG`): one character each (the default and
    /// `UTF-8`), two characters each (`long`) or numbers separated by commas (`num`).
    enum FlagStyle { case character, long, number }

    /// The dictionary of `dic` and `aff`, the two files' UTF-8 text.
    init(dic: String, aff: String) throws(VisionError) {
        var style = FlagStyle.character
        var suffixes: [String: [Affix]] = [:], prefixes: [String: [Affix]] = [:]
        var circumfix: UInt32?, needAffix: UInt32?, onlyInCompound: UInt32?, forbidden: UInt32?
        var affixLines: [[Substring]] = []
        for line in aff.split(whereSeparator: \.isNewline) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let keyword = fields.first, fields.count >= 2 else { continue }
            switch keyword {
            case "FLAG":
                switch fields[1] {
                case "long": style = .long
                case "num": style = .number
                default: style = .character
                }
            case "CIRCUMFIX": circumfix = Self.flags(fields[1], style).first
            case "NEEDAFFIX", "PSEUDOROOT": needAffix = Self.flags(fields[1], style).first
            case "ONLYINCOMPOUND": onlyInCompound = Self.flags(fields[1], style).first
            case "FORBIDDENWORD": forbidden = Self.flags(fields[1], style).first
            case "SFX", "PFX": affixLines.append(fields)
            default: continue
            }
        }
        // Each rule's header ("SFX R Y 240") gives its cross-product permission; its lines follow.
        var crossProduct: [String: Bool] = [:]
        for fields in affixLines {
            let key = String(fields[0]) + " " + String(fields[1])
            if fields.count == 4, fields[2] == "Y" || fields[2] == "N", Int(fields[3]) != nil {
                crossProduct[key] = fields[2] == "Y"
                continue
            }
            guard fields.count >= 4, let flag = Self.flags(fields[1], style).first else { continue }
            let strip = fields[2] == "0" ? "" : fields[2].lowercased()
            let addField = fields[3].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            let add = addField[0] == "0" ? "" : addField[0].lowercased()
            let continuation = addField.count > 1 ? Self.flags(addField[1], style) : []
            // An affix that only comes with a circumfix, or a forbidden form, is not followed.
            if let circumfix, continuation.contains(circumfix) { continue }
            if let forbidden, continuation.contains(forbidden) { continue }
            let condition = fields.count > 4 ? Self.condition(fields[4].lowercased()) : []
            let affix = Affix(flag: flag, crossProduct: crossProduct[key] ?? false, strip: Array(strip),
                              condition: condition, continuation: continuation)
            if fields[0] == "SFX" { suffixes[add, default: []].append(affix) } else { prefixes[add, default: []].append(affix) }
        }
        var stems: [String: [UInt32]] = [:]
        var first = true
        for line in dic.split(whereSeparator: \.isNewline) {
            // The first line is the number of stems.
            if first { first = false; if Int(line.trimmingCharacters(in: .whitespaces)) != nil { continue } }
            // "word/FLAGS", then optional morphological fields after a tab or a space.
            let entry = line.split(maxSplits: 1, whereSeparator: { $0 == "\t" || $0 == " " }).first ?? ""
            guard !entry.isEmpty else { continue }
            var word = Substring(entry), flags: [UInt32] = []
            if let slash = Self.flagSlash(in: entry) {
                word = entry[..<slash]
                flags = Self.flags(entry[entry.index(after: slash)...], style)
            }
            // An escaped slash ("\\/") is one of the word's letters (Foundation only for those few lines).
            let key = (word.contains("\\") ? word.replacingOccurrences(of: "\\/", with: "/") : String(word)).lowercased()
            stems[key, default: []].append(contentsOf: flags)
        }
        guard !stems.isEmpty else { throw .invalidArgument("the Hunspell dictionary has no words") }
        self.stems = stems
        self.suffixes = suffixes
        self.prefixes = prefixes
        longestSuffix = suffixes.keys.map(\.count).max() ?? 0
        longestPrefix = prefixes.keys.map(\.count).max() ?? 0
        notAlone = Set([needAffix, onlyInCompound, forbidden].compactMap { $0 })
        self.forbidden = forbidden
    }

    /// Whether `word` is a word of the dictionary, in any case.
    func contains(_ word: String) -> Bool {
        let word = Array(word.lowercased())
        guard !word.isEmpty else { return false }
        if let flags = stems[String(word)], !flags.contains(where: notAlone.contains) { return true }
        if hasSuffixedStem(word, needing: nil, afterPrefix: nil) { return true }
        // A prefix, then the stem alone or with a suffix.
        for length in 0...min(longestPrefix, word.count) {
            for prefix in prefixes[String(word[..<length])] ?? [] {
                let stem = prefix.strip + word[length...]
                guard !stem.isEmpty, Self.meets(prefix.condition, stem, atEnd: false) else { continue }
                if let flags = stems[String(stem)], flags.contains(prefix.flag), !isForbidden(flags) { return true }
                if prefix.crossProduct, hasSuffixedStem(stem, needing: nil, afterPrefix: prefix) { return true }
            }
        }
        return false
    }

    /// Whether `word` is a stem with one suffix, or with two where the first allows the second;
    /// `needing` is the flag the suffix must allow after it (nil: the outer suffix), `afterPrefix`
    /// a prefix already taken off (the stem must then carry its flag, the suffix allow the pair).
    private func hasSuffixedStem(_ word: [Character], needing: UInt32?, afterPrefix prefix: Affix?) -> Bool {
        for length in 0...min(longestSuffix, word.count) {
            for suffix in suffixes[String(word[(word.count - length)...])] ?? [] {
                if let needing, !suffix.continuation.contains(needing) { continue }
                if prefix != nil, !suffix.crossProduct { continue }
                let stem = Array(word[..<(word.count - length)]) + suffix.strip
                guard !stem.isEmpty, Self.meets(suffix.condition, stem, atEnd: true) else { continue }
                if let flags = stems[String(stem)], flags.contains(suffix.flag), prefix.map({ flags.contains($0.flag) }) ?? true, !isForbidden(flags) {
                    return true
                }
                // Two suffixes: this one the outer, an inner one that allows it on the stem.
                if needing == nil, hasSuffixedStem(stem, needing: suffix.flag, afterPrefix: prefix) { return true }
            }
        }
        return false
    }

    private func isForbidden(_ flags: [UInt32]) -> Bool {
        forbidden.map(flags.contains) ?? false
    }

    /// Whether `stem` meets `condition` at its end (a suffix's) or start (a prefix's).
    static func meets(_ condition: [Condition], _ stem: [Character], atEnd: Bool) -> Bool {
        guard condition.count <= stem.count else { return false }
        let offset = atEnd ? stem.count - condition.count : 0
        for (index, element) in condition.enumerated() where !element.matches(stem[offset + index]) { return false }
        return true
    }

    /// A condition's text ("[^cguz]ar", ".", "[aei]r") as its characters.
    static func condition(_ text: String) -> [Condition] {
        guard text != "." else { return [] }
        var result: [Condition] = []
        var characters = text.makeIterator()
        while let character = characters.next() {
            switch character {
            case ".": result.append(.any)
            case "[":
                var set = Set<Character>(), negated = false, first = true
                while let inner = characters.next(), inner != "]" {
                    if first, inner == "^" { negated = true } else { set.insert(inner) }
                    first = false
                }
                result.append(.oneOf(set, negated: negated))
            default: result.append(.oneOf([character], negated: false))
            }
        }
        return result
    }

    /// The slash that starts an entry's flags (not an escaped "\/").
    private static func flagSlash(in entry: Substring) -> Substring.Index? {
        var previous: Character?
        for index in entry.indices {
            if entry[index] == "/", previous != "\\", index != entry.startIndex { return index }
            previous = entry[index]
        }
        return nil
    }

    /// The flags written in `text` in `style`.
    static func flags(_ text: Substring, _ style: FlagStyle) -> [UInt32] {
        switch style {
        case .character:
            return text.unicodeScalars.map(\.value)
        case .long:
            let scalars = Array(text.unicodeScalars)
            return stride(from: 0, to: scalars.count - 1, by: 2).map { scalars[$0].value << 16 | scalars[$0 + 1].value }
        case .number:
            return text.split(separator: ",").compactMap { UInt32($0.trimmingCharacters(in: .whitespaces)) }
        }
    }
}
