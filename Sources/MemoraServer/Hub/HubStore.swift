internal import Foundation
internal import MemoraDatabase
internal import MemoraHub
internal import MemoraSystem
internal import MemoraSync

/// The Memory Palace hub's tables (Docs/Hub.md) on either store, through ``SQLDatabase``: pairing
/// tokens, people, memories, the people in each memory and the faces on its photo. Every change is one
/// batch, one transaction.
struct HubStore: Sendable {
    let database: any SQLDatabase

    /// Adds the column `definition` (its name, then its type) to `table` when it has none by that name.
    /// Servers starting together may both add it: on SQLite, which has no `IF NOT EXISTS` for a column,
    /// the one that finds it added meanwhile goes on.
    private static func addColumn(_ definition: String, to table: String, in database: any SQLDatabase) async throws(ServerError) {
        let name = String(definition.prefix { $0 != " " })
        if database.dialect == .postgres {
            _ = try await database.run([SQLStatement("SELECT pg_advisory_xact_lock(724562020)"),
                                      SQLStatement("ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS \(definition)")])
            return
        }
        func exists() async throws(ServerError) -> Bool {
            try await database.value("SELECT COUNT(*) FROM pragma_table_info('\(table)') WHERE name = ?", [.text(name)], as: Int64.self, readOnly: false) != 0
        }
        guard try await !exists() else { return }
        do {
            _ = try await database.run([SQLStatement("ALTER TABLE \(table) ADD COLUMN \(definition)")])
        } catch {
            guard try await exists() else { throw error }
        }
    }

    /// Creates the tables when missing (on PostgreSQL under an advisory lock, so servers starting together do not race).
    static func open(_ database: any SQLDatabase) async throws(ServerError) -> HubStore {
        let postgres = database.dialect == .postgres
        let lock = postgres ? [SQLStatement("SELECT pg_advisory_xact_lock(724562020)")] : []
        var statements = lock
        statements += [
            "CREATE TABLE IF NOT EXISTS hub_pairing (token_hash TEXT PRIMARY KEY, expires_at BIGINT NOT NULL, used_at BIGINT, created_at BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS hub_memory_people (memory_id BIGINT NOT NULL, person_id BIGINT NOT NULL, PRIMARY KEY (memory_id, person_id))",
            """
            CREATE TABLE IF NOT EXISTS hub_dashboard_sessions (token_hash TEXT PRIMARY KEY, key_hash TEXT NOT NULL, created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS hub_uploads (id TEXT PRIMARY KEY, device TEXT NOT NULL, size BIGINT NOT NULL, sha256 TEXT NOT NULL,
                content_type TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)
            """,
        ].map { SQLStatement($0) }
        statements += Self.numberedTables.map { SQLStatement($0.create(database.dialect, "IF NOT EXISTS " + $0.name)) }
        _ = try await database.run(statements)
        // v2: durations of videos and voice notes. v3: the embeddings of faces (for suggestions on every device).
        try await addColumn("duration_ms BIGINT", to: "hub_memories", in: database)
        try await addColumn("embedding TEXT", to: "hub_faces", in: database)
        // v5: who wrote a memory's description: nil as uploaded (a device's, or Memora's models), `person` once edited on the dashboard.
        try await addColumn("description_by TEXT", to: "hub_memories", in: database)
        // v6: what did not fit in the description (a photo's extended description).
        try await addColumn("extended_description TEXT", to: "hub_memories", in: database)
        // v7: who wrote it: nil as uploaded, `photo` when taken from the photo's own metadata.
        try await addColumn("extended_description_by TEXT", to: "hub_memories", in: database)
        // v4: ids are never reused on SQLite (AUTOINCREMENT), as PostgreSQL's BIGSERIAL never reuses them.
        if !postgres { try await rebuildWithoutReuse(database) }
        _ = try await database.run(lock + Self.indexes.map { SQLStatement($0) })
        try await HubSearch.prepare(database)
        return HubStore(database: database)
    }

    /// The tables whose rows are numbered by the hub (people, memories, faces): their `CREATE TABLE`
    /// for a dialect and a name. Ids go into devices' outboxes and caches, so a deleted row's id is
    /// never given to another row: `BIGSERIAL` on PostgreSQL, `INTEGER PRIMARY KEY AUTOINCREMENT` on
    /// SQLite (without AUTOINCREMENT, SQLite gives the largest id plus one, the deleted newest row's).
    private static let numberedTables: [(name: String, create: @Sendable (SyncTableSQL.Dialect, String) -> String)] = [
        ("hub_people", { dialect, name in
            """
            CREATE TABLE \(name) (id \(serial(dialect)), name TEXT NOT NULL, name_key TEXT NOT NULL UNIQUE, relationship TEXT,
                avatar_sha256 TEXT, created_by TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)
            """
        }),
        ("hub_memories", { dialect, name in
            """
            CREATE TABLE \(name) (id \(serial(dialect)), sha256 TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, title TEXT NOT NULL,
                description TEXT, taken_at BIGINT, latitude \(real(dialect)), longitude \(real(dialect)), place TEXT, media_type TEXT NOT NULL,
                size BIGINT NOT NULL, width BIGINT, height BIGINT, has_thumbnail BIGINT NOT NULL DEFAULT 0,
                uploaded_by TEXT NOT NULL, upload_nonce TEXT NOT NULL, created_at BIGINT NOT NULL, duration_ms BIGINT, description_by TEXT,
                extended_description TEXT, extended_description_by TEXT)
            """
        }),
        ("hub_faces", { dialect, name in
            """
            CREATE TABLE \(name) (id \(serial(dialect)), memory_id BIGINT NOT NULL, x \(real(dialect)) NOT NULL, y \(real(dialect)) NOT NULL,
                width \(real(dialect)) NOT NULL, height \(real(dialect)) NOT NULL, person_id BIGINT, updated_by TEXT NOT NULL, updated_at BIGINT NOT NULL,
                embedding TEXT)
            """
        }),
        ("hub_memory_edits", { dialect, name in
            """
            CREATE TABLE \(name) (id \(serial(dialect)), memory_id BIGINT NOT NULL, field TEXT NOT NULL, old_value TEXT, new_value TEXT,
                old_by TEXT, new_by TEXT, edited_by TEXT NOT NULL, edited_at BIGINT NOT NULL, undone_by TEXT, undone_at BIGINT)
            """
        }),
    ]

    private static func serial(_ dialect: SyncTableSQL.Dialect) -> String {
        dialect == .postgres ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT"
    }

    private static func real(_ dialect: SyncTableSQL.Dialect) -> String {
        dialect == .postgres ? "DOUBLE PRECISION" : "REAL"
    }

    /// The hub's indexes, made after the tables (a rebuilt table loses its own).
    private static let indexes = [
        "CREATE INDEX IF NOT EXISTS hub_memories_kind ON hub_memories (kind, id)",
        "CREATE INDEX IF NOT EXISTS hub_memories_taken ON hub_memories (taken_at)",
        // The dashboard's order (when made, then id) on its own and within a kind: pages by keyset, not by offset.
        "CREATE INDEX IF NOT EXISTS hub_memories_made ON hub_memories ((COALESCE(taken_at, created_at)), id)",
        "CREATE INDEX IF NOT EXISTS hub_memories_kind_made ON hub_memories (kind, (COALESCE(taken_at, created_at)), id)",
        "CREATE INDEX IF NOT EXISTS hub_memory_people_person ON hub_memory_people (person_id, memory_id)",
        "CREATE INDEX IF NOT EXISTS hub_faces_memory ON hub_faces (memory_id)",
        "CREATE INDEX IF NOT EXISTS hub_faces_person ON hub_faces (person_id, memory_id)",
        "CREATE INDEX IF NOT EXISTS hub_memory_edits_memory ON hub_memory_edits (memory_id, id)",
    ]

    /// SQLite only: rebuilds each numbered table made before v4 (no AUTOINCREMENT) as a copy with
    /// AUTOINCREMENT, its rows and ids kept, in one transaction. SQLite then starts the table's
    /// sequence at its largest id, so no id in use or above it is ever given again (an id deleted
    /// before the rebuild and larger than every remaining one is unknown, and can be given once more).
    private static func rebuildWithoutReuse(_ database: any SQLDatabase) async throws(ServerError) {
        for table in numberedTables {
            let definition = try await database.value("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table.name)],
                                                      as: String.self, readOnly: false) ?? ""
            guard !definition.uppercased().contains("AUTOINCREMENT") else { continue }
            let columns = try await database.rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table.name)])
                .column("name", as: String.self).map { "\"\($0)\"" }.joined(separator: ", ")
            let (name, building, create) = (table.name, table.name + "_v4", table.create(.sqlite, table.name + "_v4"))
            try await database.transaction { (transaction) async throws(ServerError) in
                // Checked again inside the transaction: a server starting beside this one may have rebuilt it meanwhile.
                let now = try await transaction.value("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)], as: String.self) ?? ""
                guard !now.uppercased().contains("AUTOINCREMENT") else { return }
                try await transaction.execute(create)
                try await transaction.execute("INSERT INTO \(building) (\(columns)) SELECT \(columns) FROM \(name)")
                let copied = try await transaction.value("SELECT (SELECT COUNT(*) FROM \(name)) = (SELECT COUNT(*) FROM \(building))", as: Int64.self)
                guard copied == 1 else { throw .storage("rebuilding \(name) did not copy every row; the table is unchanged") }
                try await transaction.execute("DROP TABLE \(name)")
                try await transaction.execute("ALTER TABLE \(building) RENAME TO \(name)")
            }
        }
    }

    // MARK: Pairing

    /// A new pairing code for the hub's QR code: a random token that works once, for `lifetimeSeconds`,
    /// at `host`:`port`. Only the token's hash is stored.
    func newPairingCode(host: String, port: Int, lifetimeSeconds: Int64, name: String?, now: Int64 = Instant.now) async throws(ServerError) -> PairingCode {
        let token = ServerSecrets.randomToken(bytes: 18)
        let expires = now + lifetimeSeconds * 1000
        try await addPairingToken(hash: ServerSecrets.hash(token), expiresAt: expires, now: now)
        return PairingCode(serverIP: host, port: port, authToken: token, serverName: name, expiresAt: expires)
    }

    /// Records a pairing token (by its hash) that works once, until `expiresAt`.
    func addPairingToken(hash: String, expiresAt: Int64, now: Int64) async throws(ServerError) {
        _ = try await database.run([
            SQLStatement("DELETE FROM hub_pairing WHERE expires_at < ?", [.integer(now - 24 * 3600 * 1000)]),
            SQLStatement("INSERT INTO hub_pairing (token_hash, expires_at, created_at) VALUES (?, ?, ?)", [.text(hash), .integer(expiresAt), .integer(now)]),
        ])
    }

    /// Uses up the pairing token with this hash: true when it existed, was unused and had not expired.
    func usePairingToken(hash: String, now: Int64) async throws(ServerError) -> Bool {
        !(try await database.rows("UPDATE hub_pairing SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING token_hash",
                                [.integer(now), .text(hash), .integer(now)])).isEmpty
    }

    /// Makes a pairing token that ``usePairingToken(hash:now:)`` marked used at `now` usable again: the
    /// pairing it was for failed (a revoked device), so the code is not spent for nothing.
    func releasePairingToken(hash: String, usedAt now: Int64) async throws(ServerError) {
        _ = try await database.run([SQLStatement("UPDATE hub_pairing SET used_at = NULL WHERE token_hash = ? AND used_at = ?", [.text(hash), .integer(now)])])
    }

    /// The SHA-256 of every memory's media and every person's avatar: the files the hub keeps.
    func referencedFiles() async throws(ServerError) -> (media: Set<String>, avatars: Set<String>) {
        let media = try await database.rows("SELECT sha256 FROM hub_memories", []).column("sha256", as: String.self)
        let avatars = try await database.rows("SELECT avatar_sha256 FROM hub_people WHERE avatar_sha256 IS NOT NULL", []).column("avatar_sha256", as: String.self)
        return (Set(media), Set(avatars))
    }

    // MARK: Dashboard sessions

    /// Opens a dashboard session with `key` for `lifetime` milliseconds and returns its token (32 random
    /// bytes); only the token's hash is kept, with the key's. Expired sessions and those of another key go.
    func openDashboardSession(key: String, now: Int64, lifetime: Int64) async throws(ServerError) -> String {
        let token = ServerSecrets.randomToken(bytes: 32), keyHash = ServerSecrets.hash(key)
        _ = try await database.run([
            SQLStatement("DELETE FROM hub_dashboard_sessions WHERE expires_at <= ? OR key_hash <> ?", [.integer(now), .text(keyHash)]),
            SQLStatement("INSERT INTO hub_dashboard_sessions (token_hash, key_hash, created_at, expires_at) VALUES (?, ?, ?, ?)",
                         [.text(ServerSecrets.hash(token)), .text(keyHash), .integer(now), .integer(now + lifetime)]),
        ])
        return token
    }

    /// Whether the session with this token's hash exists, was opened with the key whose hash is `keyHash`, and has not expired.
    func isDashboardSession(tokenHash: String, keyHash: String, now: Int64) async throws(ServerError) -> Bool {
        !(try await database.read("SELECT 1 FROM hub_dashboard_sessions WHERE token_hash = ? AND key_hash = ? AND expires_at > ?",
                                  [.text(tokenHash), .text(keyHash), .integer(now)])).isEmpty
    }

    /// Ends one dashboard session (signing out), or every one (`tokenHash` nil: the key was replaced).
    func removeDashboardSessions(tokenHash: String?) async throws(ServerError) {
        if let tokenHash {
            _ = try await database.run([SQLStatement("DELETE FROM hub_dashboard_sessions WHERE token_hash = ?", [.text(tokenHash)])])
        } else {
            _ = try await database.run([SQLStatement("DELETE FROM hub_dashboard_sessions")])
        }
    }

    // MARK: Upload sessions

    /// An upload session: a large file sent in pieces that survive a dropped connection.
    struct UploadSession: Sendable {
        var id: String
        var device: String
        var size: Int64
        var sha256: String
        var contentType: String
        var expiresAt: Int64
    }

    func addUploadSession(_ session: UploadSession, now: Int64) async throws(ServerError) {
        _ = try await database.run([SQLStatement(
            "INSERT INTO hub_uploads (id, device, size, sha256, content_type, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [.text(session.id), .text(session.device), .integer(session.size), .text(session.sha256), .text(session.contentType), .integer(now),
             .integer(session.expiresAt)])])
    }

    /// The device's unexpired session with this id.
    func uploadSession(id: String, device: String, now: Int64) async throws(ServerError) -> UploadSession? {
        try await database.rows("SELECT id, device, size, sha256, content_type, expires_at FROM hub_uploads WHERE id = ? AND device = ? AND expires_at > ?",
                              [.text(id), .text(device), .integer(now)]).first.map { (row) throws(ServerError) in
            UploadSession(id: try row["id"], device: try row["device"], size: try row["size"], sha256: try row["sha256"],
                          contentType: try row["content_type"], expiresAt: try row["expires_at"])
        }
    }

    /// Ends a session (used or abandoned).
    func removeUploadSession(id: String) async throws(ServerError) {
        _ = try await database.run([SQLStatement("DELETE FROM hub_uploads WHERE id = ?", [.text(id)])])
    }

    /// Removes the sessions that expired before `now`; returns their ids (their files go too).
    func removeExpiredUploadSessions(now: Int64) async throws(ServerError) -> [String] {
        try await database.rows("DELETE FROM hub_uploads WHERE expires_at <= ? RETURNING id", [.integer(now)]).column("id", as: String.self)
    }

    // MARK: People

    private static let personColumns = """
        p.id AS id, p.name AS name, p.relationship AS relationship, p.avatar_sha256 AS avatar_sha256,
        (SELECT COUNT(*) FROM (SELECT memory_id FROM hub_memory_people WHERE person_id = p.id
                               UNION SELECT memory_id FROM hub_faces WHERE person_id = p.id) AS counted) AS memory_count
        """

    private static func person(_ row: SQLRow) throws(ServerError) -> HubPerson {
        let id: Int64 = try row["id"]
        return HubPerson(id: id, name: try row["name"], relationship: try row["relationship"],
                         avatarUrl: try row["avatar_sha256"] as String? == nil ? nil : "/api/people/\(id)/avatar", memoryCount: try row["memory_count"])
    }

    /// Every person, by name.
    func people() async throws(ServerError) -> [HubPerson] {
        try await database.rows("SELECT \(Self.personColumns) FROM hub_people p ORDER BY p.name_key").map { (row) throws(ServerError) in try Self.person(row) }
    }

    /// The person with this id.
    func person(id: Int64) async throws(ServerError) -> HubPerson? {
        try await database.rows("SELECT \(Self.personColumns) FROM hub_people p WHERE p.id = ?", [.integer(id)]).first.map { (row) throws(ServerError) in try Self.person(row) }
    }

    /// Adds a person; when the name is taken, nothing changes and the person who has it comes back with `created` false.
    func addPerson(name: String, relationship: String?, device: String, now: Int64) async throws(ServerError) -> (person: HubPerson, created: Bool) {
        let key = NameKey.of(name)
        let results = try await database.run([
            SQLStatement("""
                INSERT INTO hub_people (name, name_key, relationship, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (name_key) DO NOTHING RETURNING id
                """, [.text(name), .text(key), SQLValue(relationship), .text(device), .integer(now), .integer(now)]),
            SQLStatement("SELECT \(Self.personColumns) FROM hub_people p WHERE p.name_key = ?", [.text(key)]),
        ])
        guard let row = results[1].first else { throw .storage("the person was not stored") }
        return (try Self.person(row), !results[0].isEmpty)
    }

    /// Renames a person or changes their relationship. Nil when there is no such person; the other person
    /// with the new name as `conflict` when it is taken.
    func updatePerson(id: Int64, name: String, relationship: String?, now: Int64) async throws(ServerError) -> (person: HubPerson?, conflict: HubPerson?) {
        let key = NameKey.of(name)
        let results = try await database.run([
            SQLStatement("""
                UPDATE hub_people SET name = ?, name_key = ?, relationship = ?, updated_at = ?
                WHERE id = ? AND NOT EXISTS (SELECT 1 FROM hub_people o WHERE o.name_key = ? AND o.id <> ?) RETURNING id
                """, [.text(name), .text(key), SQLValue(relationship), .integer(now), .integer(id), .text(key), .integer(id)]),
            SQLStatement("SELECT \(Self.personColumns) FROM hub_people p WHERE p.id = ?", [.integer(id)]),
            SQLStatement("SELECT \(Self.personColumns) FROM hub_people p WHERE p.name_key = ? AND p.id <> ?", [.text(key), .integer(id)]),
        ])
        let person = try results[1].first.map { (row) throws(ServerError) in try Self.person(row) }
        if !results[0].isEmpty { return (person, nil) }
        return (person, try results[2].first.map { (row) throws(ServerError) in try Self.person(row) })
    }

    /// Removes a person: their links to memories go, their faces stay untagged. False when there was none.
    func removePerson(id: Int64) async throws(ServerError) -> Bool {
        let results = try await database.run([
            SQLStatement("DELETE FROM hub_memory_people WHERE person_id = ?", [.integer(id)]),
            SQLStatement("UPDATE hub_faces SET person_id = NULL WHERE person_id = ?", [.integer(id)]),
            SQLStatement("DELETE FROM hub_people WHERE id = ? RETURNING id", [.integer(id)]),
        ])
        return !results[2].isEmpty
    }

    /// Sets (or, with nil, clears) a person's avatar; false when there is no such person.
    func setAvatar(person id: Int64, sha256: String?, now: Int64) async throws(ServerError) -> Bool {
        !(try await database.rows("UPDATE hub_people SET avatar_sha256 = ?, updated_at = ? WHERE id = ? RETURNING id",
                                [SQLValue(sha256), .integer(now), .integer(id)])).isEmpty
    }

    /// A person's avatar, if they have one.
    func avatar(person id: Int64) async throws(ServerError) -> String? {
        try await database.value("SELECT avatar_sha256 FROM hub_people WHERE id = ?", [.integer(id)], as: String?.self, readOnly: false) ?? nil
    }

    /// Which of these ids are people on the hub.
    func existingPeople(_ ids: Set<Int64>) async throws(ServerError) -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        let rows = try await database.rows("SELECT id FROM hub_people WHERE id IN (\(marks))", ids.map { .integer($0) })
        return Set(try rows.column("id", as: Int64.self))
    }

    // MARK: Memories

    /// What is stored of a new memory.
    struct NewMemory: Sendable {
        var sha256: String
        var upload: MemoryUpload
        var mediaType: String
        var size: Int64
        var width: Int?
        var height: Int?
        var durationMilliseconds: Int64?
        var hasThumbnail: Bool
        var device: String
        /// Where the description came from: the upload, or the photo's own metadata.
        var descriptionSource: DescriptionSource = .automatic
        /// Where the extended description came from: the upload, or the photo's own metadata.
        var extendedSource: DescriptionSource = .automatic
    }

    /// Stores a memory unless one with the same bytes exists; returns its id and whether it is new. The
    /// upload's people and faces are merged into the memory (new or not) in the same transaction.
    func addMemory(_ memory: NewMemory, now: Int64) async throws(ServerError) -> (id: Int64, created: Bool) {
        let nonce = ServerSecrets.randomToken(bytes: 12)
        let upload = memory.upload
        var statements = [SQLStatement("""
            INSERT INTO hub_memories (sha256, kind, title, description, taken_at, latitude, longitude, place, media_type, size, width, height,
                has_thumbnail, uploaded_by, upload_nonce, created_at, duration_ms, extended_description, description_by,
                extended_description_by)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING RETURNING id
            """, [.text(memory.sha256), .text(upload.kind.rawValue), .text(upload.title), SQLValue(upload.description), SQLValue(upload.takenAt),
                  SQLValue(upload.latitude), SQLValue(upload.longitude), SQLValue(upload.place), .text(memory.mediaType), .integer(memory.size),
                  SQLValue(memory.width.map(Int64.init)), SQLValue(memory.height.map(Int64.init)), .integer(memory.hasThumbnail ? 1 : 0),
                  .text(memory.device), .text(nonce), .integer(now), SQLValue(memory.durationMilliseconds), SQLValue(upload.extendedDescription),
                  SQLValue(memory.descriptionSource.storedValue), SQLValue(memory.extendedSource.storedValue)]),
            SQLStatement("SELECT id FROM hub_memories WHERE sha256 = ?", [.text(memory.sha256)]),
        ]
        // People and faces are merged into the memory, new or not: the same upload sent again changes
        // nothing, and another device's upload of the same bytes adds what it knows.
        let target = (sql: "(SELECT id FROM hub_memories WHERE sha256 = ?)", value: SQLValue.text(memory.sha256))
        if database.dialect == .postgres { statements.append(Self.memoryLock(target)) }
        statements += mergeStatements(into: target, people: upload.people ?? [], faces: upload.faces ?? [], device: memory.device, now: now)
        let results = try await database.run(statements)
        guard let id = try results[1].first?.only(as: Int64.self) else { throw .storage("the memory was not stored") }
        return (id, !results[0].isEmpty)
    }

    /// Which memories a listing shows.
    struct MemoryFilter: Sendable {
        var person: Int64?
        var kind: MemoryKind?
        var from: Int64?
        var to: Int64?
        /// Only memories with a lower id (the API's page cursor, in ``Order/added`` order).
        var before: Int64?
        /// In what order, newest first.
        var order: Order = .added
        /// Only memories made before this one, in ``Order/made`` order (the dashboard's page cursor).
        var after: MemoryCursor?
        /// Only memories made in this year (UTC), by ``MemoryCursor/time``.
        var year: Int?
        /// Only memories whose title or text (description) holds every word of this (``HubSearch``).
        var search: String?
        /// Only the memory of these bytes (a SHA-256 in lower-case hex): whether the hub has a file already.
        var sha256: String?
        var limit: Int = 50

        /// The order of a listing, newest first.
        enum Order: Sendable {
            /// By id: the order memories reached the hub (the API's).
            case added
            /// By when they were made (taken, else added), then id: the dashboard's.
            case made
        }
    }

    /// Where a page of memories in ``MemoryFilter/Order/made`` order starts: just after the memory with
    /// this time and id. Its text form (`TIME.ID`) is a stable link: memories added later do not move it.
    struct MemoryCursor: Sendable, Hashable {
        /// When the memory was made: taken, else added (milliseconds since 1970).
        var time: Int64
        var id: Int64

        init(time: Int64, id: Int64) { (self.time, self.id) = (time, id) }

        /// The cursor `TIME.ID` names; nil when the text is not one (each part at most 18 digits, the time may be negative).
        init?(_ text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ (1...19).contains($0.count) }), let time = Int64(parts[0]), let id = Int64(parts[1]), id > 0 else { return nil }
            (self.time, self.id) = (time, id)
        }

        /// `TIME.ID`.
        var text: String { "\(time).\(id)" }

        /// The cursor of a memory: just after it.
        init(_ memory: HubMemory) { self.init(time: memory.takenAt ?? memory.createdAt, id: memory.id) }
    }

    /// When a memory was made, in SQL: taken, else added. The dashboard's order and its indexes use this expression.
    static let madeAt = "COALESCE(m.taken_at, m.created_at)"

    private static let memoryColumns = """
        m.id AS id, m.kind AS kind, m.title AS title, m.description AS description, m.taken_at AS taken_at, m.latitude AS latitude,
        m.longitude AS longitude, m.place AS place, m.media_type AS media_type, m.size AS size, m.width AS width, m.height AS height,
        m.has_thumbnail AS has_thumbnail, m.uploaded_by AS uploaded_by, m.created_at AS created_at, m.sha256 AS sha256, m.duration_ms AS duration_ms,
        m.extended_description AS extended_description
        """

    /// A page of memories, newest first, with their people and faces.
    func memories(_ filter: MemoryFilter) async throws(ServerError) -> (memories: [HubMemory], more: Bool) {
        var conditions: [String] = [], values: [SQLValue] = []
        if let person = filter.person {
            // Both through their (person_id, memory_id) indexes: the person's memories, never a scan of all of them.
            conditions.append("m.id IN (SELECT memory_id FROM hub_memory_people WHERE person_id = ? UNION SELECT memory_id FROM hub_faces WHERE person_id = ?)")
            values += [.integer(person), .integer(person)]
        }
        if let kind = filter.kind { conditions.append("m.kind = ?"); values.append(.text(kind.rawValue)) }
        if let sha256 = filter.sha256 { conditions.append("m.sha256 = ?"); values.append(.text(sha256)) }
        if let from = filter.from { conditions.append("m.taken_at >= ?"); values.append(.integer(from)) }
        if let to = filter.to { conditions.append("m.taken_at <= ?"); values.append(.integer(to)) }
        if let before = filter.before { conditions.append("m.id < ?"); values.append(.integer(before)) }
        if let year = filter.year, let range = Self.milliseconds(ofYear: year) {
            conditions.append("\(Self.madeAt) BETWEEN ? AND ?")
            values += [.integer(range.lowerBound), .integer(range.upperBound)]
        }
        if let after = filter.after {
            // Each planner walks the order's index from the cursor only with its own form: PostgreSQL
            // with a row comparison (it filtered 50,000 rows with the other), SQLite with the OR.
            if database.dialect == .postgres {
                conditions.append("(\(Self.madeAt), m.id) < (?, ?)")
                values += [.integer(after.time), .integer(after.id)]
            } else {
                conditions.append("(\(Self.madeAt) < ? OR (\(Self.madeAt) = ? AND m.id < ?))")
                values += [.integer(after.time), .integer(after.time), .integer(after.id)]
            }
        }
        if let search = filter.search {
            // No word to look for (only punctuation): nothing matches.
            guard let match = try await HubSearch.condition(search, in: database) else { return ([], false) }
            conditions.append(match.sql)
            values.append(match.value)
        }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let order = filter.order == .added ? "m.id DESC" : "\(Self.madeAt) DESC, m.id DESC"
        let rows = try await database.rows("SELECT \(Self.memoryColumns) FROM hub_memories m \(whereClause) ORDER BY \(order) LIMIT \(filter.limit + 1)", values)
        let page = Array(rows.prefix(filter.limit))
        return (try await withPeopleAndFaces(page), rows.count > filter.limit)
    }

    /// The first and last millisecond of a year (UTC); nil outside 1..9999.
    static func milliseconds(ofYear year: Int) -> ClosedRange<Int64>? {
        guard (1...9999).contains(year) else { return nil }
        func start(_ year: Int) -> Int64 {
            // Days from 1970-01-01 to 1 January of `year` (proleptic Gregorian).
            let y = Int64(year - 1)
            let days = y * 365 + y / 4 - y / 100 + y / 400 - 719_162
            return days * 86_400_000
        }
        return start(year)...(start(year + 1) - 1)
    }

    /// The years in which memories were made, newest first: every year from the first memory's to the
    /// last one's (at most 500).
    func years() async throws(ServerError) -> [Int] {
        // Each end through the index on the made time (one MIN or MAX a query, so the index answers it).
        let rows = try await database.rows("""
            SELECT (SELECT MIN(\(Self.madeAt)) FROM hub_memories m) AS first, (SELECT MAX(\(Self.madeAt)) FROM hub_memories m) AS last
            """)
        guard let row = rows.first, let first: Int64 = try row["first"], let last: Int64 = try row["last"] else { return [] }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let (low, high) = (utc.component(.year, from: Date(timeIntervalSince1970: Double(first) / 1000)), utc.component(.year, from: Date(timeIntervalSince1970: Double(last) / 1000)))
        return Array((max(low, high - 499)...high).reversed())
    }

    /// The platform of the device with this id (`ios`, `linux`…), nil when the hub does not know it.
    func platform(ofDevice device: String) async throws(ServerError) -> String? {
        try await database.value("SELECT platform FROM devices WHERE device_id = ?", [.text(device)], as: String.self)
    }

    /// The memory with this id.
    func memory(id: Int64) async throws(ServerError) -> HubMemory? {
        try await withPeopleAndFaces(try await database.rows("SELECT \(Self.memoryColumns) FROM hub_memories m WHERE m.id = ?", [.integer(id)])).first
    }

    /// The memory with these bytes.
    func memory(sha256: String) async throws(ServerError) -> HubMemory? {
        try await withPeopleAndFaces(try await database.rows("SELECT \(Self.memoryColumns) FROM hub_memories m WHERE m.sha256 = ?", [.text(sha256)])).first
    }

    private func withPeopleAndFaces(_ rows: [SQLRow]) async throws(ServerError) -> [HubMemory] {
        guard !rows.isEmpty else { return [] }
        let ids = try rows.column("id", as: Int64.self)
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        let results = try await database.run([
            SQLStatement("SELECT memory_id, person_id FROM hub_memory_people WHERE memory_id IN (\(marks)) ORDER BY person_id", ids.map { .integer($0) }),
            SQLStatement("SELECT memory_id, id, x, y, width, height, person_id FROM hub_faces WHERE memory_id IN (\(marks)) ORDER BY id", ids.map { .integer($0) }),
        ])
        var people: [Int64: [Int64]] = [:], faces: [Int64: [FaceTag]] = [:]
        for row in results[0] { people[try row["memory_id"], default: []].append(try row["person_id"]) }
        for row in results[1] {
            faces[try row["memory_id"], default: []].append(FaceTag(id: try row["id"], x: try row["x"], y: try row["y"],
                                                                    width: try row["width"], height: try row["height"], personId: try row["person_id"]))
        }
        return try rows.map { (row) throws(ServerError) in
            let id: Int64 = try row["id"]
            let tagged = (faces[id] ?? []).compactMap(\.personId)
            let kind: String = try row["kind"]
            guard let memoryKind = MemoryKind(rawValue: kind) else { throw .storage("memory \(id) is of an unknown kind (\(kind))") }
            let details = MemoryDetails(
                kind: memoryKind, title: try row["title"], description: try row["description"], extendedDescription: try row["extended_description"],
                takenAt: try row["taken_at"], latitude: try row["latitude"], longitude: try row["longitude"], place: try row["place"])
            return HubMemory(
                id: id, details: details, people: Array(Set((people[id] ?? []) + tagged)).sorted(), faces: faces[id] ?? [],
                mediaType: try row["media_type"], size: try row["size"], sha256: try row["sha256"], durationMs: try row["duration_ms"],
                width: try row["width"], height: try row["height"], uploadedBy: try row["uploaded_by"], createdAt: try row["created_at"],
                mediaUrl: "/api/memories/\(id)/media", thumbnailUrl: try row["has_thumbnail"] as Int64 == 1 ? "/api/memories/\(id)/thumbnail" : nil)
        }
    }

    /// Removes a memory with its people and faces; returns its SHA-256 (its files go too), nil when there was none.
    func removeMemory(id: Int64) async throws(ServerError) -> String? {
        let results = try await database.run([
            SQLStatement("DELETE FROM hub_memory_edits WHERE memory_id = ?", [.integer(id)]),
            SQLStatement("DELETE FROM hub_memory_people WHERE memory_id = ?", [.integer(id)]),
            SQLStatement("DELETE FROM hub_faces WHERE memory_id = ?", [.integer(id)]),
            SQLStatement("DELETE FROM hub_memories WHERE id = ? RETURNING sha256", [.integer(id)]),
        ])
        return try results[3].first?.only(as: String.self)
    }

    /// Removes a memory (``removeMemory(id:)``), then its file and thumbnail in `files` when no memory
    /// refers to them any more. False when there was no such memory.
    func removeMemory(id: Int64, files: HubMedia) async throws(ServerError) -> Bool {
        guard let hash = try await removeMemory(id: id) else { return false }
        if try await memory(sha256: hash) == nil { files.remove(sha256: hash) }
        return true
    }

    /// Tags (or, with nil, untags) face `faceID` of memory `memoryID`: false when there is no such face.
    func tagFace(memoryID: Int64, faceID: Int64, person: Int64?, device: String, now: Int64) async throws(ServerError) -> Bool {
        !(try await database.rows("UPDATE hub_faces SET person_id = ?, updated_by = ?, updated_at = ? WHERE id = ? AND memory_id = ? RETURNING id",
                                [SQLValue(person), .text(device), .integer(now), .integer(faceID), .integer(memoryID)])).isEmpty
    }

    /// Merges faces (another device's detection or upload of the same photo) and people into memory
    /// `memoryID`: false when there is no such memory.
    func merge(into memoryID: Int64, people: [Int64], faces: [FaceTag], device: String, now: Int64) async throws(ServerError) -> Bool {
        var statements = [SQLStatement("SELECT id FROM hub_memories WHERE id = ?", [.integer(memoryID)])]
        let target = (sql: "?", value: SQLValue.integer(memoryID))
        if database.dialect == .postgres { statements.append(Self.memoryLock(target)) }
        statements += mergeStatements(into: target, people: people, faces: faces, device: device, now: now)
        return !(try await database.run(statements))[0].isEmpty
    }

    /// PostgreSQL's lock of one memory until the transaction ends: merges into it take turns (two
    /// servers may share the database, and each merge reads the faces before it adds one).
    private static func memoryLock(_ target: (sql: String, value: SQLValue)) -> SQLStatement {
        SQLStatement("SELECT pg_advisory_xact_lock(724562021, CAST(\(target.sql) % 2147483647 AS INTEGER))", [target.value])
    }

    /// The statements that merge `people` and `faces` into the memory that `target` selects (Docs/Hub.md,
    /// "Faces from several devices"): people are added; a face is the face on the photo that its box
    /// overlaps most with an IoU of at least 0.5, which gets the face's person when it has none and its
    /// embedding when it has none; a face that overlaps none is added. A tag is never replaced here:
    /// changing one is `PUT /api/memories/{id}/faces/{faceId}`, where the later request wins.
    private func mergeStatements(into target: (sql: String, value: SQLValue), people: [Int64], faces: [FaceTag],
                                 device: String, now: Int64) -> [SQLStatement] {
        var statements: [SQLStatement] = []
        for person in Set(people).sorted() {
            statements.append(SQLStatement("""
                INSERT INTO hub_memory_people (memory_id, person_id) SELECT m.id, p.id FROM hub_memories m, hub_people p
                WHERE m.id = \(target.sql) AND p.id = ? ON CONFLICT DO NOTHING
                """, [target.value, .integer(person)]))
        }
        let (least, greatest) = database.dialect == .postgres ? ("LEAST", "GREATEST") : ("MIN", "MAX")
        for face in faces {
            // The area the face's box shares with row f's, and the condition IoU >= 0.5 (3 x shared >= both areas).
            let shared = """
                \(greatest)(0, \(least)(f.x + f.width, ?) - \(greatest)(f.x, ?)) * \(greatest)(0, \(least)(f.y + f.height, ?) - \(greatest)(f.y, ?))
                """
            let box: [SQLValue] = [.real(face.x + face.width), .real(face.x), .real(face.y + face.height), .real(face.y)]
            let area = face.width * face.height
            let sameFace = "f.memory_id = \(target.sql) AND 3 * \(shared) >= f.width * f.height + ?"
            let sameFaceValues = [target.value] + box + [.real(area)]
            let best = """
                (SELECT f.id FROM hub_faces f WHERE \(sameFace)
                 ORDER BY COALESCE(\(shared) / NULLIF(f.width * f.height + ? - \(shared), 0), 1) DESC, f.id LIMIT 1)
                """
            let bestValues = sameFaceValues + box + [.real(area)] + box
            if let person = face.personId {
                statements.append(SQLStatement("""
                    UPDATE hub_faces SET person_id = ?, updated_by = ?, updated_at = ?
                    WHERE id = \(best) AND person_id IS NULL AND EXISTS (SELECT 1 FROM hub_people WHERE id = ?)
                    """, [.integer(person), .text(device), .integer(now)] + bestValues + [.integer(person)]))
            }
            if let embedding = face.embedding {
                statements.append(SQLStatement("UPDATE hub_faces SET embedding = ? WHERE id = \(best) AND embedding IS NULL",
                                               [.text(Self.encode(embedding))] + bestValues))
            }
            statements.append(SQLStatement("""
                INSERT INTO hub_faces (memory_id, x, y, width, height, person_id, embedding, updated_by, updated_at)
                SELECT m.id, ?, ?, ?, ?, (SELECT p.id FROM hub_people p WHERE p.id = ?), ?, ?, ? FROM hub_memories m
                WHERE m.id = \(target.sql) AND NOT EXISTS (SELECT 1 FROM hub_faces f WHERE \(sameFace))
                """, [.real(face.x), .real(face.y), .real(face.width), .real(face.height), SQLValue(face.personId),
                      SQLValue(face.embedding.map(Self.encode)), .text(device), .integer(now), target.value] + sameFaceValues))
        }
        return statements
    }

    /// The latest tagged faces that have an embedding, at most ``KnownFaceList/perPerson`` a person and
    /// `limit` in all.
    func knownFaces(limit: Int) async throws(ServerError) -> [KnownFace] {
        let rows = try await database.rows("""
            SELECT person_id, embedding FROM (
                SELECT person_id, embedding, ROW_NUMBER() OVER (PARTITION BY person_id ORDER BY updated_at DESC, id DESC) AS n
                FROM hub_faces WHERE person_id IS NOT NULL AND embedding IS NOT NULL) AS ranked
            WHERE n <= ? ORDER BY person_id, n LIMIT ?
            """, [.integer(Int64(KnownFaceList.perPerson)), .integer(Int64(limit))])
        var faces: [KnownFace] = []
        for row in rows {
            // An embedding that does not decode (not base64 of whole floats) is left out, as a face without one.
            guard let embedding = Self.decode(try row["embedding"]) else { continue }
            faces.append(KnownFace(personId: try row["person_id"], embedding: embedding))
        }
        return faces
    }

    /// An embedding as the hub keeps it: base64 of its 32-bit floats, little-endian.
    static func encode(_ embedding: [Float]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(embedding.count * 4)
        for value in embedding { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        return Data(bytes).base64EncodedString()
    }

    /// An embedding the hub kept; nil when the text is not one.
    static func decode(_ text: String) -> [Float]? {
        guard let data = Data(base64Encoded: text), !data.isEmpty, data.count % 4 == 0 else { return nil }
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count, by: 4).map { index in
            Float(bitPattern: UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24)
        }
    }
}

extension ServerData {
    /// Fills the hub with `count` text memories (titles and dates spread over ten years), a tenth of
    /// them with one of `people` people, in transactions of 1,000: the memory bench's library.
    package func seedMemories(_ count: Int, people: Int) async throws(ServerError) {
        var ids: [Int64] = []
        for index in 0..<people {
            ids.append(try await hub.addPerson(name: "Person \(index)", relationship: nil, device: "bench", now: 0).person.id)
        }
        let start = 1_262_304_000_000 as Int64, step = 315_360_000_000 / Int64(max(count, 1))  // ten years from 2010
        for batch in stride(from: 0, to: count, by: 1000) {
            var statements: [SQLStatement] = []
            for index in batch..<min(batch + 1000, count) {
                let hash = Hex.string(SHA256Digest.hash(Array("bench memory \(index)".utf8)))
                statements.append(SQLStatement("""
                    INSERT INTO hub_memories (sha256, kind, title, description, taken_at, media_type, size, uploaded_by, upload_nonce, created_at)
                    VALUES (?, 'text', ?, ?, ?, 'text/plain; charset=utf-8', 40, 'bench', 'bench', ?)
                    """, [.text(hash), .text("Memory \(index)"), .text("A note written for the benchmark, number \(index)."),
                          .integer(start + Int64(index) * step), .integer(start + Int64(index))]))
                if !ids.isEmpty, index % 10 == 0 {
                    statements.append(SQLStatement("INSERT INTO hub_memory_people (memory_id, person_id) SELECT id, ? FROM hub_memories WHERE sha256 = ?",
                                                   [.integer(ids[(index / 10) % ids.count]), .text(hash)]))
                }
            }
            _ = try await hub.database.run(statements)
        }
    }
}
