package import Foundation
package import GRDB

/// A record of one of Memora's SQLite databases (the caption database, the photo index, the
/// vault catalogue): one `Codable` type per table, its snake_case columns named by its
/// `CodingKeys`, every `Date` stored as an INTEGER of milliseconds since 1970 UTC, rounded to
/// the nearest (GRDB's own millisecond strategy truncates, which puts some dates 1 ms early).
/// See Docs/Architecture.md, "Databases".
package protocol MillisecondRecord: Codable, FetchableRecord, PersistableRecord {}

extension MillisecondRecord {
    /// Dates are written as milliseconds since 1970, to the nearest.
    package static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { Instant.milliseconds($0) }
    }

    /// Dates are read from milliseconds since 1970.
    package static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .millisecondsSince1970 }

    /// The value of an instant column: milliseconds since 1970 UTC, to the nearest.
    package static func milliseconds(_ date: Date) -> Int64 { Instant.milliseconds(date) }

    /// The date of an instant column's value (as the records decode it).
    package static func date(milliseconds: Int64) -> Date { Instant.date(milliseconds: milliseconds) }

    /// For migrations that rebuild a table: `script` (given a temporary name) creates the new
    /// table under that name and copies every row of the old one into it (`INSERT … SELECT`);
    /// the new table then replaces the old one and takes its name. Throws, rolling the
    /// migration back, when a row was not copied. Foreign keys are checked when the migration commits.
    package static func rebuild(from oldName: String, in db: Database, script: (String) -> String) throws {
        let building = databaseTableName + "_rebuilt"
        try db.execute(sql: script(building))
        let counts = try (Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(oldName.quotedDatabaseIdentifier)"),
                          Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(building.quotedDatabaseIdentifier)"))
        guard counts.0 == counts.1 else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "rebuilding \(oldName) copied \(counts.1 ?? 0) of its \(counts.0 ?? 0) rows")
        }
        try db.drop(table: oldName)
        try db.rename(table: building, to: databaseTableName)
    }
}
