import Foundation
internal import MemoraSystem

/// The words of the languages a photo's text is checked against: plain word lists, one word a
/// line, as Debian's `wamerican`, `wbritish`, `wngerman`, `wfrench`, `wspanish`, `witalian` and
/// `wportuguese` install them in `/usr/share/dict` (macOS has `/usr/share/dict/words`), and Hunspell
/// dictionaries, whose rules give the inflected forms a plain list lacks ("recoge" of "recoger"),
/// as `hunspell-es` installs Spanish's in `/usr/share/hunspell`.
///
/// Words are kept folded (lower case, accents dropped), so "ZURICH" is found as "Zürich". A text
/// line is quoted only when its words are found here or follow a rule for numbers, codes and
/// names (``TextLegibility``).
public struct WordList: Sendable {
    /// Each folded word's 64-bit FNV-1a hash: 1.5 million words of seven languages load in a
    /// fraction of a second and take 8 bytes each (two of them colliding is a one in ten million chance).
    private let words: Set<UInt64>

    /// The Hunspell dictionaries, matched in lower case with their accents.
    private let dictionaries: [HunspellDictionary]

    /// The word lists and dictionaries read, in the order given.
    public let sources: [String]

    /// The lists Memora looks for, English first: the languages whose word lists Debian packages
    /// as plain lists (the `w*` packages) and whose script PP-OCRv6 reads. `scripts/install-deps.sh` installs them.
    public static let standardPaths = [
        "/usr/share/dict/american-english", "/usr/share/dict/british-english", "/usr/share/dict/ngerman",
        "/usr/share/dict/french", "/usr/share/dict/spanish", "/usr/share/dict/italian", "/usr/share/dict/portuguese",
        "/usr/share/dict/words",
        // Spanish's plain list holds each verb's infinitive but not its other forms ("recoger", not
        // "recoge"); the French, Italian and Portuguese lists hold them already.
        "/usr/share/hunspell/es_ES.dic",
    ]

    /// The installed lists of ``standardPaths`` (or the colon-separated files in `MEMORA_WORD_LISTS`),
    /// read once; empty when none is installed. A file reached by two paths (Debian's
    /// `/usr/share/dict/words` is a link to one of the others) is read once.
    public static let installed: WordList = {
        let environment = ProcessInfo.processInfo.environment["MEMORA_WORD_LISTS"]
        let paths = environment.map { $0.split(separator: ":").map(String.init) } ?? standardPaths
        return (try? WordList(files: readable(paths))) ?? WordList(words: [])
    }()

    /// The files of `paths` that exist, each once (the first path that reaches it, links resolved),
    /// without a Hunspell dictionary whose `.aff` is missing: one broken dictionary is passed over,
    /// not allowed to fail every list.
    static func readable(_ paths: [String]) -> [String] {
        var seen = Set<String>()
        return paths.filter {
            FileSystem.exists($0) && (!$0.hasSuffix(".dic") || FileSystem.exists(String($0.dropLast(4)) + ".aff"))
                && seen.insert(FileSystem.resolvedPath($0) ?? $0).inserted
        }
    }

    /// A list of `words`.
    public init(words: some Sequence<String>) {
        self.words = Set(words.map { Self.hash(Self.fold($0)) })
        dictionaries = []
        sources = []
    }

    /// The words of every file in `files`: a plain list (UTF-8, one word a line; a word with an
    /// apostrophe or a possessive "'s" is also kept without it), or a Hunspell dictionary, a `.dic`
    /// file with its `.aff` file beside it (UTF-8).
    public init(files: [String]) throws(VisionError) {
        var lists: [[UInt8]] = []
        var dictionaryFiles: [(path: String, dic: [UInt8], aff: [UInt8])] = []
        for path in files {
            if path.hasSuffix(".dic") {
                let affix = String(path.dropLast(4)) + ".aff"
                do { dictionaryFiles.append((path, try SystemFile(path).readAll(), try SystemFile(affix).readAll())) } catch {
                    throw .invalidArgument("the Hunspell dictionary \(path) (with \(affix)) cannot be read: \(error.reason)")
                }
                continue
            }
            do { lists.append(try SystemFile(path).readAll()) } catch { throw .invalidArgument("the word list \(path) cannot be read: \(error.reason)") }
        }
        // The plain lists on one core and the dictionaries on the other (Spanish's takes about half
        // the lists' time): a photo's first text waits for the longer of the two.
        let (plain, hunspell) = (lists, dictionaryFiles)
        let loaded = try ParallelWork.map(2, workers: hunspell.isEmpty ? 1 : 2) { (part: Int) throws(VisionError) -> Loaded in
            guard part == 1 else { return .words(Self.words(of: plain)) }
            var dictionaries: [HunspellDictionary] = []
            for file in hunspell {
                do {
                    dictionaries.append(try HunspellDictionary(dic: String(decoding: file.dic, as: UTF8.self), aff: String(decoding: file.aff, as: UTF8.self)))
                } catch {
                    throw .invalidArgument("the Hunspell dictionary \(file.path) holds no words")
                }
            }
            return .dictionaries(dictionaries)
        }
        var words = Set<UInt64>(), dictionaries: [HunspellDictionary] = []
        for part in loaded {
            switch part {
            case .words(let set): words = set
            case .dictionaries(let list): dictionaries = list
            }
        }
        self.words = words
        self.dictionaries = dictionaries
        sources = files
    }

    /// What one worker of ``init(files:)`` loaded.
    private enum Loaded: Sendable {
        case words(Set<UInt64>)
        case dictionaries([HunspellDictionary])
    }

    /// The folded words' hashes of plain lists (UTF-8, one word a line; a word with a possessive
    /// "'s" is also kept without it).
    private static func words(of lists: [[UInt8]]) -> Set<UInt64> {
        // Room for every line at once (1.5 million in the lists Debian installs), so the set never grows.
        var words = Set<UInt64>(minimumCapacity: lists.reduce(0) { $0 + $1.lazy.filter { $0 == 0x0A }.count + 1 })
        var folded: [UInt8] = []
        folded.reserveCapacity(64)
        for bytes in lists {
            bytes.withUnsafeBufferPointer { bytes in
                var start = 0
                while start < bytes.count {
                    var end = start
                    while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
                    let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
                    start = end + 1
                    guard !line.isEmpty else { continue }
                    // Most words fold byte by byte (English's, and the Latin-1 letters of the others); the rest through Foundation.
                    if !foldLatin(line, into: &folded) { folded = Array(fold(String(decoding: line, as: UTF8.self)).utf8) }
                    words.insert(hash(folded))
                    if folded.count > 2, folded[folded.count - 2] == 0x27, folded[folded.count - 1] == 0x73 { words.insert(hash(folded.dropLast(2))) }
                }
            }
        }
        return words
    }

    /// The number of words of the plain lists.
    public var count: Int { words.count }

    /// Whether there are no words (no list or dictionary installed).
    public var isEmpty: Bool { words.isEmpty && dictionaries.isEmpty }

    /// Whether `word` is in a plain list, in any case and with or without its accents, or is a word
    /// of a Hunspell dictionary, in any case.
    public func contains(_ word: some StringProtocol) -> Bool {
        let word = String(word)
        return words.contains(Self.hash(Self.fold(word))) || dictionaries.contains { $0.contains(word) }
    }

    /// Short words a run-together string may hold (a run of letters is split only into words of
    /// four letters or more, or these: "ofgreyvalues" is "of grey values", "tuinvitacion" is "tu
    /// invitacion"; "photocoples" is not "photo cop les"): English's commonest, then the articles,
    /// pronouns and prepositions of the other languages the lists hold.
    static let shortWords: Set<String> = [
        "a", "i", "an", "as", "at", "be", "by", "do", "go", "he", "if", "in", "is", "it", "me", "my", "no", "of", "on", "or", "so", "to", "up", "us", "we",
        "the", "and", "for", "with", "our", "you", "are", "was", "not", "but", "all", "can", "has", "her", "his", "its", "one", "new",
        "de", "del", "la", "las", "el", "los", "en", "un", "una", "tu", "su", "mi", "al", "con", "por",
        "le", "les", "des", "du", "une", "et", "ou", "au", "aux", "ton", "son",
        "il", "di", "da", "lo", "gli", "per",
        "os", "um", "uma", "na", "em", "com",
        "der", "die", "das", "und", "im", "am", "zu", "ein", "mit", "von",
    ]

    /// `letters` (lower case, not itself a word) split into as few words of the list as possible,
    /// at most four, each at least four letters or a short common word ("of", "the"); nil when there is no such split.
    public func split(_ letters: String) -> [String]? {
        let characters = Array(letters)
        guard characters.count >= 5, characters.count <= 64 else { return nil }
        // fewest[i]: the fewest words that make characters[..<i], and where the last one starts.
        var fewest = [(count: Int, from: Int)?](repeating: nil, count: characters.count + 1)
        fewest[0] = (0, 0)
        for end in 1...characters.count {
            for start in 0..<end {
                guard let before = fewest[start] else { continue }
                let piece = String(characters[start..<end])
                guard piece.count >= 4 || Self.shortWords.contains(piece), contains(piece) else { continue }
                if fewest[end] == nil || before.count + 1 < fewest[end]!.count { fewest[end] = (before.count + 1, start) }
            }
        }
        guard let last = fewest[characters.count], last.count >= 2, last.count <= 4 else { return nil }
        var pieces: [String] = []
        var end = characters.count
        while end > 0, let step = fewest[end] {
            pieces.insert(String(characters[step.from..<end]), at: 0)
            end = step.from
        }
        return pieces
    }

    /// Lower case, accents dropped.
    static func fold(_ word: String) -> String {
        var folded: [UInt8] = []
        return foldLatin(word.utf8, into: &folded) ? String(decoding: folded, as: UTF8.self)
            : word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// What each letter of Latin-1 from U+00C0 folds to (Foundation's case- and diacritic-insensitive
    /// folding), or 0 for the letters left to Foundation ("ß", "æ", "ø") and the signs ("×", "÷").
    private static let latinLetters: [UInt8] = Array("aaaaaa.ceeeeiiii.nooooo..uuuuy..aaaaaa.ceeeeiiii.nooooo..uuuuy.y".utf8).map { $0 == 0x2E ? 0 : $0 }

    /// `bytes` (UTF-8) folded into `folded` (replaced) as ``fold(_:)`` folds them, byte by byte, when
    /// they hold only ASCII and the accented letters of Latin-1 that fold to an ASCII letter (all
    /// but 7,000 of the 1.5 million lines of the installed lists); false (and `folded` undefined) otherwise.
    static func foldLatin(_ bytes: some Collection<UInt8>, into folded: inout [UInt8]) -> Bool {
        folded.removeAll(keepingCapacity: true)
        var inLatinLetter = false  // after 0xC3, the lead byte of U+00C0...U+00FF
        for byte in bytes {
            if inLatinLetter {
                guard byte & 0xC0 == 0x80 else { return false }
                let letter = latinLetters[Int(byte & 0x3F)]
                guard letter != 0 else { return false }
                folded.append(letter)
                inLatinLetter = false
            } else if byte < 0x80 {
                folded.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
            } else if byte == 0xC3 {
                inLatinLetter = true
            } else {
                return false
            }
        }
        return !inLatinLetter
    }

    static func hash(_ word: String) -> UInt64 { hash(Array(word.utf8)) }

    /// 64-bit FNV-1a.
    static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
        return value
    }
}
