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

    enum CodingKeys: String, CodingKey {
        case id, name, hidden
        case namedByUser = "named_by_user", createdAt = "created_at"
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
}
