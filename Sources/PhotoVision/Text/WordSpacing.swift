/// Spaces the recogniser left out between words, put back where the letters themselves show the
/// border: PP-OCRv4 often reads "Kodak EasyShare" as "KodakEasyShare" and "printer 500" as
/// "printer500", and a screen reader then speaks one long made-up word.
///
/// A space goes where a lower-case letter is followed by an upper-case one after at least three
/// letters of a word ("BiothermCellui" → "Biotherm Cellui"; "iPod", "McDonald" and "eBay" stay),
/// and between three or more letters and two or more digits, either way round ("printer500" →
/// "printer 500"; "MP3", "A4" and "4de" stay). Text of other scripts is left as it is.
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
                }
            }
            result.append(character)
            letters = isLatinLetter(character) ? letters + 1 : 0
        }
        return result
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
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
