internal import MemoraSync

/// The server's tables for the synced collections, written once for both SQL dialects.
enum SyncTableSQL {
    /// The SQL dialects the stores speak.
    enum Dialect { case sqlite, postgres }

    /// `CREATE TABLE` and `CREATE INDEX` statements for one collection.
    static func create(_ collection: SyncCollection, dialect: Dialect) -> [String] {
        var columns = ["key TEXT PRIMARY KEY"]
        for field in collection.allFields { columns.append("\(field.name) \(type(of: field.kind, dialect: dialect))") }
        columns += [
            "version BIGINT NOT NULL", "deleted BOOLEAN NOT NULL DEFAULT FALSE",
            "updated_by TEXT NOT NULL", "server_updated_at BIGINT NOT NULL",
        ]
        if collection.keyFields.count > 1 {
            columns.append("UNIQUE(\(collection.keyFields.map(\.name).joined(separator: ", ")))")
        }
        var statements = ["CREATE TABLE \(collection.name) (\n    \(columns.joined(separator: ",\n    "))\n)"]
        statements.append("CREATE INDEX idx_\(collection.name)_version ON \(collection.name)(version)")
        if let owner = collection.ownerField {
            statements.append("CREATE INDEX idx_\(collection.name)_\(owner)_version ON \(collection.name)(\(owner), version)")
        }
        return statements
    }

    static func type(of kind: SyncField.Kind, dialect: Dialect) -> String {
        switch kind {
        case .text, .identifier, .deviceID, .sha256, .choice: "TEXT"
        case .integer, .timestamp: "BIGINT"
        case .real: dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
        case .boolean: "BOOLEAN"
        case .jsonObject: dialect == .sqlite ? "TEXT" : "JSONB"
        case .objectList: dialect == .sqlite ? "TEXT" : "JSONB"
        }
    }

    /// The protocol's own tables.
    static func protocolTables(dialect: Dialect) -> [String] {
        let blob = "TEXT"
        return [
            """
            CREATE TABLE meta (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE sync_counter (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                value BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE devices (
                id TEXT PRIMARY KEY,
                device_id TEXT UNIQUE NOT NULL,
                platform TEXT NOT NULL,
                token_hash \(blob) UNIQUE NOT NULL,
                token_expires_at BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                last_sync_at BIGINT,
                revoked_at BIGINT,
                last_mutation_id BIGINT NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE mutation_rejections (
                device_id TEXT NOT NULL,
                mutation_id BIGINT NOT NULL,
                error TEXT NOT NULL,
                PRIMARY KEY (device_id, mutation_id)
            )
            """,
            """
            CREATE TABLE objects (
                sha256 TEXT PRIMARY KEY,
                size BIGINT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
        ]
    }
}
