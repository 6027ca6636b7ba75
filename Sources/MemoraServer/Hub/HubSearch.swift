internal import Foundation

/// The hub's search over memories' titles and texts (a text memory's text is its description): SQLite's
/// FTS5 or PostgreSQL's full-text search, with the same results on both.
///
/// Both find a memory when its title or description holds every word asked for, as a whole word, in
/// any case. Words are what lies between spaces and punctuation, so "Grandma's soup" asks for
/// "grandma", "s" and "soup". Neither stems a word nor drops common ones (FTS5's `unicode61`
/// tokenizer, PostgreSQL's `simple` configuration), and neither removes accents: "café" does not
/// find "cafe".
enum HubSearch {
    /// The most words a search looks for, and the longest word: the rest is ignored.
    static let maxWords = 16, maxWordLength = 64

    /// The words of a search: lowercased runs of letters and digits.
    static func words(_ query: String) -> [String] {
        var words: [String] = [], current = ""
        for character in query.lowercased() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        var seen = Set<String>()
        return Array(words.filter { $0.count <= maxWordLength && seen.insert($0).inserted }.prefix(maxWords))
    }

    /// Above this many matches, SQLite looks for a search's matches along the order of the page
    /// (below it, among the matches).
    static let manyMatches = 1000

    /// The condition on memories `m` that a search adds, with its one value; nil when the search has no word.
    static func condition(_ query: String, in database: any SQLDatabase) async throws(ServerError) -> (sql: String, value: SQLValue)? {
        let words = words(query)
        guard !words.isEmpty else { return nil }
        switch database.dialect {
        case .postgres:
            // Letters and digits only, so no word is an operator of to_tsquery. PostgreSQL's planner
            // weighs the GIN index against the order's index itself.
            return ("\(postgresDocument("m.")) @@ to_tsquery('simple', ?)", .text(words.joined(separator: " & ")))
        case .sqlite:
            // Each word quoted: FTS5 reads it as a word, never as an operator (AND, NEAR…) or a column.
            let match = SQLValue.text(words.map { "\"\($0)\"" }.joined(separator: " "))
            // SQLite's planner cannot tell a rare word from a common one. A few matches are read and
            // sorted (a rare word: the order's index would be walked to its end); many are found by
            // walking the order's index and asking the index of each memory until the page is full
            // (a word every memory has: reading and sorting all of them took 140 ms for 100,000).
            let found = try await database.read("SELECT rowid FROM hub_memories_fts WHERE hub_memories_fts MATCH ? LIMIT \(manyMatches + 1)", [match]).count
            if found <= manyMatches {
                return ("m.id IN (SELECT rowid FROM hub_memories_fts WHERE hub_memories_fts MATCH ?)", match)
            }
            return ("EXISTS (SELECT 1 FROM hub_memories_fts WHERE hub_memories_fts MATCH ? AND rowid = m.id)", match)
        }
    }

    /// ASCII's punctuation, which PostgreSQL's text is cleared of before its parser reads it.
    private static let punctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

    /// The text PostgreSQL searches, as its index has it (`prefix`: the table's alias with its dot).
    /// Its parser reads more than words: `<recipe>` is a tag and is dropped, `v2.0` a version, an
    /// address a host. Each ASCII punctuation mark becomes a space first, so it sees the words FTS5 sees.
    private static func postgresDocument(_ prefix: String) -> String {
        let marks = punctuation.replacingOccurrences(of: "'", with: "''")
        let spaces = String(repeating: " ", count: punctuation.count)
        return "to_tsvector('simple', translate(\(prefix)title || ' ' || COALESCE(\(prefix)description, ''), '\(marks)', '\(spaces)'))"
    }

    /// The triggers that keep SQLite's index in step with `hub_memories`.
    private static let triggers: [(name: String, body: String)] = [
        ("hub_memories_fts_added", "AFTER INSERT ON hub_memories BEGIN INSERT INTO hub_memories_fts (rowid, title, description) VALUES (new.id, new.title, new.description); END"),
        ("hub_memories_fts_removed", """
            AFTER DELETE ON hub_memories BEGIN
            INSERT INTO hub_memories_fts (hub_memories_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description); END
            """),
        ("hub_memories_fts_changed", """
            AFTER UPDATE OF title, description ON hub_memories BEGIN
            INSERT INTO hub_memories_fts (hub_memories_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
            INSERT INTO hub_memories_fts (rowid, title, description) VALUES (new.id, new.title, new.description); END
            """),
    ]

    /// Makes the search index when missing. PostgreSQL: a GIN index on the memories' text. SQLite: an
    /// FTS5 table over `hub_memories` (external content: the text is not stored twice) and the triggers
    /// that keep it current; when the table or a trigger was missing (a hub from before search, or a
    /// rebuilt table, which loses its triggers), the index is rebuilt from every memory.
    static func prepare(_ database: any SQLDatabase) async throws(ServerError) {
        if database.dialect == .postgres {
            _ = try await database.run([
                SQLStatement("SELECT pg_advisory_xact_lock(724562020)"),
                SQLStatement("CREATE INDEX IF NOT EXISTS hub_memories_search ON hub_memories USING GIN (\(postgresDocument("")))"),
            ])
            return
        }
        try await database.transaction { (transaction) async throws(ServerError) in
            let present = Set(try await transaction.rows("SELECT name FROM sqlite_master WHERE name LIKE 'hub_memories_fts%'", [])
                .column("name", as: String.self))
            let missing = !present.contains("hub_memories_fts") || triggers.contains { !present.contains($0.name) }
            guard missing else { return }
            try await transaction.execute("""
                CREATE VIRTUAL TABLE IF NOT EXISTS hub_memories_fts USING fts5(title, description, content='hub_memories', content_rowid='id',
                    tokenize='unicode61 remove_diacritics 0')
                """)
            for trigger in triggers { try await transaction.execute("CREATE TRIGGER IF NOT EXISTS \(trigger.name) \(trigger.body)") }
            try await transaction.execute("INSERT INTO hub_memories_fts (hub_memories_fts) VALUES ('rebuild')")
        }
    }
}
