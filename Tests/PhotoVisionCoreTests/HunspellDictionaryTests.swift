import Foundation
import Testing
@testable import PhotoVisionCore

/// Hunspell dictionaries: the inflected forms a plain word list lacks (Docs/Vision.md, "Quoting text").
@Suite("Hunspell dictionaries")
struct HunspellDictionaryTests {
    /// A dictionary of this test's own, in Hunspell's format: each rule on its own.
    static let aff = """
        SET UTF-8
        FLAG UTF-8
        NEEDAFFIX ª

        SFX R Y 3
        SFX R er e [^c]er
        SFX R er iendo er
        SFX R ar ás ar

        SFX A N 1
        SFX A r ción/S ar

        SFX S Y 1
        SFX S 0 es n

        PFX P Y 1
        PFX P 0 re .

        SFX L N 1
        SFX L 0 ito o
        """
    static let dic = """
        7
        km\\/h
        coger/RP
        entonar/RA
        gato/L
        mesa
        inventer/ªR
        Madrid
        """

    static let dictionary = try! HunspellDictionary(dic: dic, aff: aff)

    @Test("stems alone, and with a suffix where its condition holds", arguments: ["coger", "coge", "cogiendo", "mesa", "Madrid", "MADRID", "entonás", "km/h", "KM/H"])
    func words(_ word: String) {
        #expect(Self.dictionary.contains(word), "\(word)")
    }

    @Test("not words: a suffix the stem lacks, a condition unmet, a stem that needs an affix, a misread", arguments: ["mesae", "gatoe", "inventer", "coged", "recogex", "gatitos"])
    func notWords(_ word: String) {
        #expect(!Self.dictionary.contains(word), "\(word)")
    }

    @Test("a prefix, a prefix with a suffix where both allow it, two suffixes where the first allows the second")
    func combinations() {
        #expect(Self.dictionary.contains("recoger"))
        #expect(Self.dictionary.contains("recoge"), "re- and -e, both cross products")
        #expect(Self.dictionary.contains("entonación"))
        #expect(Self.dictionary.contains("entonaciónes"), "-ción allows -es after it")
        #expect(!Self.dictionary.contains("entonares"), "-es only after -ción")
        #expect(Self.dictionary.contains("inventiendo"), "a stem that needs an affix, with one")
    }

    @Test("flags written two characters each or as numbers")
    func flagStyles() throws {
        let long = try HunspellDictionary(dic: "1\nparl/AaBb\n", aff: "FLAG long\nSFX Aa Y 1\nSFX Aa 0 er .\nSFX Bb Y 1\nSFX Bb 0 ons .\n")
        #expect(long.contains("parler") && long.contains("parlons") && !long.contains("parlez"))
        let numbers = try HunspellDictionary(dic: "1\nparl/12,7\n", aff: "FLAG num\nSFX 12 Y 1\nSFX 12 0 er .\nSFX 7 Y 1\nSFX 7 0 ez .\n")
        #expect(numbers.contains("parler") && numbers.contains("parlez") && !numbers.contains("parlons"))
    }

    @Test("a dictionary with no words is refused; a WordList given a .dic reads its .aff beside it, and names a missing one")
    func files() throws {
        #expect(throws: VisionError.self) { try HunspellDictionary(dic: "0\n", aff: Self.aff) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memora-hunspell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(Self.dic.utf8).write(to: folder.appendingPathComponent("xx_XX.dic"))
        #expect { try WordList(files: [folder.path + "/xx_XX.dic"]) } throws: { ($0 as? VisionError)?.message.contains("xx_XX.aff") == true }
        try Data(Self.aff.utf8).write(to: folder.appendingPathComponent("xx_XX.aff"))
        let list = try WordList(files: [folder.path + "/xx_XX.dic"])
        #expect(list.contains("cogiendo") && list.contains("COGIENDO") && !list.isEmpty)
        #expect(!list.contains("cogiendx"))
    }

    @Test("the installed Spanish dictionary (install-deps.sh's hunspell-es) holds the forms the plain list lacks")
    func installed() throws {
        let list = WordList.installed
        try #require(list.sources.contains("/usr/share/hunspell/es_ES.dic"), "hunspell-es is not installed: run scripts/install-deps.sh")
        let plain = try WordList(files: list.sources.filter { !$0.hasSuffix(".dic") })
        for word in ["recoge", "recogiendo", "invitaciones", "Recogemos"] {
            #expect(list.contains(word) && !plain.contains(word), "\(word): in the dictionary, not in the plain lists")
        }
        for word in ["mavo", "recogex", "Stewant", "BUDWEISD", "photocepies"] { #expect(!list.contains(word), "\(word)") }
    }
}
