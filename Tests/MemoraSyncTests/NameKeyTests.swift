import MemoraSync
import Testing

/// How people and places are compared by name: without case, surrounding spaces or runs of spaces.
@Suite("NameKey")
struct NameKeyTests {
    @Test("case, surrounding white space and runs of white space make no difference", arguments: [
        ("  ana   SILVA ", "ana silva"), ("Ana Silva", "ana silva"), ("ANA\tSilva\n", "ana silva"), ("Ana\u{00A0}\u{2003}Silva", "ana silva"),
        ("ÉLODIE Ñúñez", "élodie ñúñez"), ("Porto", "porto"),
    ])
    func normalised(name: String, key: String) {
        #expect(NameKey.of(name) == key)
        #expect(NameKey.of(name) == NameKey.of(key))
    }

    @Test("names that differ in more than case and spacing keep different keys")
    func distinct() {
        #expect(NameKey.of("Ana Silva") != NameKey.of("AnaSilva"))
        #expect(NameKey.of("Ana Silva") != NameKey.of("Ana Silvia"))
        #expect(NameKey.of("Ana-Silva") != NameKey.of("Ana Silva"))
        #expect(NameKey.of("Zoë") != NameKey.of("Zoe"))
    }

    @Test("a key is its own key; a name of white space alone has the empty key")
    func idempotent() {
        for name in ["  ana   SILVA ", "ÉLODIE", "a\tb  c", ""] {
            #expect(NameKey.of(NameKey.of(name)) == NameKey.of(name))
        }
        #expect(NameKey.of("") == "")
        #expect(NameKey.of(" \t\n ") == "")
    }

    @Test("the same name typed composed (é) or decomposed (e + U+0301) has the same key bytes, as the hub's UNIQUE name_key column compares them")
    func unicodeNormalisation() {
        let composed = NameKey.of("José"), decomposed = NameKey.of("Jose\u{301}")
        #expect(composed == decomposed, "Swift's == compares canonically equivalent text as equal")
        // The hub stores the key in a TEXT column with a UNIQUE index (HubStore's hub_people.name_key),
        // which compares bytes: the two spellings would be two people there.
        #expect(Array(composed.utf8) == Array(decomposed.utf8))
    }
}
