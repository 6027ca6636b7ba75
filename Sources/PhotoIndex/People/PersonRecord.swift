import Foundation
import GRDB

/// A row of `persons`: a person of the People picker, a cluster of detected faces
/// (``PeopleClustering``), with the name a person gave it or the one its faces' metadata gives.
struct PersonRecord: IndexRecord, Identifiable, Equatable {
    static let databaseTableName = "persons"

    var id: Int64?
    var name: String?
    /// Whether a person typed the name (`memora people name`): metadata never replaces it.
    var namedByUser: Bool
    var hidden: Bool
    var createdAt: Date
    /// Whether a user merged another person into this one (`memora people merge`): a rebuild then keeps
    /// every cluster whose faces were this person's in it, instead of splitting them up again.
    var mergedByUser = false

    enum CodingKeys: String, CodingKey {
        case id, name, hidden
        case namedByUser = "named_by_user", createdAt = "created_at", mergedByUser = "merged_by_user"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
        static let hidden = Column(CodingKeys.hidden)
    }

    /// v5: the table.
    static func create(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.autoIncrementedPrimaryKey(CodingKeys.id.rawValue)
            table.column(CodingKeys.name.rawValue, .text)
            table.column(CodingKeys.namedByUser.rawValue, .boolean).notNull().defaults(to: false)
            table.column(CodingKeys.hidden.rawValue, .boolean).notNull().defaults(to: false)
            table.column(CodingKeys.createdAt.rawValue, .integer).notNull()
        }
    }

    /// v7: people merged by a user stay merged through a rebuild.
    static func addMergedByUser(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: CodingKeys.mergedByUser.rawValue, .boolean).notNull().defaults(to: false)
        }
    }
}
