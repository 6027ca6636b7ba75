/// Spaces the recogniser left out between words, put back where the letters themselves show the
/// border: the recogniser often reads "Kodak EasyShare" as "KodakEasyShare" and "printer 500" as
/// "printer500", and a screen reader then speaks one long made-up word.
///
/// A space goes where a lower-case letter is followed by an upper-case one after at least three
/// letters of a word ("BiothermCellui" → "Biotherm Cellui"; "iPod", "McDonald" and "eBay" stay),
/// and between three or more letters and two or more digits, either way round ("printer500" →
/// "printer 500"; "MP3", "A4" and "4de" stay), and after a sentence's or a clause's punctuation
/// that the next word touches ("background.These" → "background. These", "Hello,world" →
/// "Hello, world"; "www.example.com", "e.g." and "Node.js" stay). Text of other scripts is left as it is.
enum WordSpacing {
    static func spaced(_ text: String) -> String {
        let characters = Array(text)
        guard characters.count > 4 else { return text }
        var result = ""
        var letters = 0  // letters in the current word so far
        for (index, character) in characters.enumerated() {
            if index > 0 {
                let previous = characters[index - 1]
                if isLatinLetter(previous) && character.isUppercase && previous.isLowercase && letters >= 3 {
                    result.append(" ")
                    letters = 0
                } else if isLatinLetter(previous) && character.isASCIIDigit && letters >= 3 && digitRun(characters, from: index) >= 2 {
                    result.append(" ")
                    letters = 0
                } else if previous.isASCIIDigit && isLatinLetter(character) && digitRun(characters, endingAt: index - 1) >= 2
                            && letterRun(characters, from: index) >= 3 {
                    result.append(" ")
                } else if index >= 4, startsSentenceOrClause(characters, at: index) {
                    result.append(" ")
                }
            }
            result.append(character)
            letters = isLatinLetter(character) ? letters + 1 : 0
        }
        return result
    }

    /// Whether `characters[index]` begins a word glued to the punctuation before it: a capitalised
    /// word after ". ! ?" that ends a lower-case word, or a word after ", ; :" that ends one; each
    /// word three letters or more.
    private static func startsSentenceOrClause(_ characters: [Character], at index: Int) -> Bool {
        let mark = characters[index - 1], before = characters[index - 2]
        guard isLatinLetter(before), letterRun(characters, endingAt: index - 2) >= 3, letterRun(characters, from: index) >= 3 else { return false }
        switch mark {
        case ".", "!", "?": return before.isLowercase && characters[index].isUppercase && characters[index + 1].isLowercase
        case ",", ";", ":": return true
        default: return false
        }
    }

    private static func isLatinLetter(_ character: Character) -> Bool {
        character.isLetter && character.unicodeScalars.allSatisfy { $0.value < 0x250 }
    }

    private static func digitRun(_ characters: [Character], from start: Int) -> Int {
        characters[start...].prefix { $0.isASCIIDigit }.count
    }

    private static func digitRun(_ characters: [Character], endingAt end: Int) -> Int {
        characters[...end].reversed().prefix { $0.isASCIIDigit }.count
    }

    private static func letterRun(_ characters: [Character], from start: Int) -> Int {
        characters[start...].prefix(while: isLatinLetter).count
    }

    private static func letterRun(_ characters: [Character], endingAt end: Int) -> Int {
        characters[...end].reversed().prefix(while: isLatinLetter).count
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
