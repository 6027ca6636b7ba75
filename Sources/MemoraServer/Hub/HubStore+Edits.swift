internal import Foundation
internal import MemoraHub

/// Corrections made on the dashboard: a memory's title and description edited by a person, each change
/// recorded (who, when, the value before and after) so that it can be undone. Only the hub's rows
/// change: the uploaded file never does.
extension HubStore {
    /// Who wrote a memory's description.
    enum DescriptionSource: String, Sendable {
        /// As uploaded: written by Memora's models or a device's, so labelled as written automatically.
        case automatic
        /// Edited by a person on the dashboard.
        case person
        /// The photo's own alt text or caption, taken because the upload gave no description: written
        /// by whoever captioned the file, a person or a program.
        case photo

        /// What `hub_memories.description_by` holds for it (NULL for ``automatic``, as before this value existed).
        var storedValue: String? { self == .automatic ? nil : rawValue }

        /// How a memory's page says it, after the text.
        var label: String {
            switch self {
            case .automatic: "written automatically"
            case .person: "written by a person"
            case .photo: "from the photo's own metadata"
            }
        }
    }

    /// One recorded change of a memory's title or description.
    struct MemoryEdit: Sendable, Equatable {
        /// What changed.
        enum Field: String, Sendable { case title, description }
        var id: Int64
        var memoryID: Int64
        var field: Field
        var oldValue: String?
        var newValue: String?
        /// Who made it (a dashboard session's short name).
        var editedBy: String
        /// When (milliseconds since 1970).
        var editedAt: Int64
        /// When it was undone, nil while it stands.
        var undoneAt: Int64?
    }

    /// Who wrote the description and the extended description of memory `id`; nil when there is no such memory.
    func descriptionSources(memory id: Int64) async throws(ServerError) -> (description: DescriptionSource, extended: DescriptionSource)? {
        let rows = try await database.read("SELECT description_by, extended_description_by FROM hub_memories WHERE id = ?", [.integer(id)])
        guard let row = rows.first else { return nil }
        let (description, extended): (String?, String?) = (try row["description_by"], try row["extended_description_by"])
        return (description.flatMap(DescriptionSource.init(rawValue:)) ?? .automatic, extended.flatMap(DescriptionSource.init(rawValue:)) ?? .automatic)
    }

    /// Sets a memory's title and description (nil: none) as a person corrected them, recording each field
    /// that changed. Returns the changes made (none when both were already so), nil when there is no such memory.
    func edit(memory id: Int64, title: String, description: String?, by editor: String, now: Int64) async throws(ServerError) -> [MemoryEdit]? {
        let forUpdate = database.forUpdate
        return try await database.transaction { (transaction) async throws(ServerError) -> [MemoryEdit]? in
            let rows = try await transaction.rows("SELECT title, description, description_by FROM hub_memories WHERE id = ?\(forUpdate)", [.integer(id)])
            guard let row = rows.first else { return nil }
            let (oldTitle, oldDescription, oldBy): (String, String?, String?) = (try row["title"], try row["description"], try row["description_by"])
            var edits: [MemoryEdit] = []
            func record(_ field: MemoryEdit.Field, _ old: String?, _ new: String?, oldBy: String?, newBy: String?) async throws(ServerError) {
                let editID = try await transaction.value("""
                    INSERT INTO hub_memory_edits (memory_id, field, old_value, new_value, old_by, new_by, edited_by, edited_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                    """, [.integer(id), .text(field.rawValue), SQLValue(old), SQLValue(new), SQLValue(oldBy), SQLValue(newBy), .text(editor), .integer(now)],
                    as: Int64.self)
                guard let editID else { throw .storage("the change was not recorded") }
                edits.append(MemoryEdit(id: editID, memoryID: id, field: field, oldValue: old, newValue: new, editedBy: editor, editedAt: now))
            }
            if title != oldTitle {
                try await record(.title, oldTitle, title, oldBy: nil, newBy: nil)
                try await transaction.execute("UPDATE hub_memories SET title = ? WHERE id = ?", [.text(title), .integer(id)])
            }
            if description != oldDescription {
                let person = DescriptionSource.person.rawValue
                try await record(.description, oldDescription, description, oldBy: oldBy, newBy: person)
                try await transaction.execute("UPDATE hub_memories SET description = ?, description_by = ? WHERE id = ?",
                                              [SQLValue(description), .text(person), .integer(id)])
            }
            return edits
        }
    }

    /// The recorded changes of memory `id`, newest first (at most `limit`).
    func edits(memory id: Int64, limit: Int = 50) async throws(ServerError) -> [MemoryEdit] {
        try await database.read("""
            SELECT id, memory_id, field, old_value, new_value, edited_by, edited_at, undone_at FROM hub_memory_edits
            WHERE memory_id = ? ORDER BY id DESC LIMIT ?
            """, [.integer(id), .integer(Int64(limit))]).map { (row) throws(ServerError) in
            let field: String = try row["field"]
            guard let known = MemoryEdit.Field(rawValue: field) else { throw .storage("a change of an unknown field (\(field))") }
            return MemoryEdit(id: try row["id"], memoryID: try row["memory_id"], field: known, oldValue: try row["old_value"], newValue: try row["new_value"],
                              editedBy: try row["edited_by"], editedAt: try row["edited_at"], undoneAt: try row["undone_at"])
        }
    }

    /// What undoing a change did.
    enum UndoOutcome: Sendable, Equatable {
        /// The field has its value from before the change again.
        case undone
        /// No such change of this memory, or it was undone already.
        case notFound
        /// The field was changed again since: that later change is undone first.
        case changedSince
    }

    /// Undoes change `editID` of memory `id`: the field gets back the value (and, for a description, the
    /// writer) it had before, when it still has the value the change gave it.
    func undo(edit editID: Int64, memory id: Int64, by editor: String, now: Int64) async throws(ServerError) -> UndoOutcome {
        let forUpdate = database.forUpdate
        return try await database.transaction { (transaction) async throws(ServerError) -> UndoOutcome in
            let edits = try await transaction.rows("""
                SELECT field, old_value, new_value, old_by FROM hub_memory_edits WHERE id = ? AND memory_id = ? AND undone_at IS NULL\(forUpdate)
                """, [.integer(editID), .integer(id)])
            guard let edit = edits.first else { return .notFound }
            let field: String = try edit["field"]
            let (old, new, oldBy): (String?, String?, String?) = (try edit["old_value"], try edit["new_value"], try edit["old_by"])
            guard let current = try await transaction.rows("SELECT title, description FROM hub_memories WHERE id = ?\(forUpdate)", [.integer(id)]).first else {
                return .notFound
            }
            switch MemoryEdit.Field(rawValue: field) {
            case .title:
                guard try current["title"] as String == new, let old else { return .changedSince }
                try await transaction.execute("UPDATE hub_memories SET title = ? WHERE id = ?", [.text(old), .integer(id)])
            case .description:
                guard try current["description"] as String? == new else { return .changedSince }
                try await transaction.execute("UPDATE hub_memories SET description = ?, description_by = ? WHERE id = ?",
                                              [SQLValue(old), SQLValue(oldBy), .integer(id)])
            case nil:
                throw .storage("a change of an unknown field (\(field))")
            }
            try await transaction.execute("UPDATE hub_memory_edits SET undone_at = ?, undone_by = ? WHERE id = ?", [.integer(now), .text(editor), .integer(editID)])
            return .undone
        }
    }
}
