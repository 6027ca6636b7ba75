import GRDB

/// A name or a year with how many photos it has.
public struct CountedValue: Sendable, Hashable, Codable {
    /// The person, the place, or the year as text.
    public var value: String
    /// Photos.
    public var count: Int
}

/// What the collage picker offers: years, places and people with their photo counts
/// (the seed's `PersonCache`), people only from ``minimumPhotosPerPerson`` photos up
/// (the seed's 10, configurable).
public struct PersonCache: Sendable, Hashable, Codable {
    /// The seed's minimum photos for a person to be offered.
    public static let defaultMinimumPhotos = 10

    /// The minimum used.
    public var minimumPhotosPerPerson: Int
    /// Photos in the index (readable or not).
    public var photos: Int
    /// Photos recorded with an error.
    public var unreadable: Int
    /// Photos whose date is only the file's date.
    public var untrustedDates: Int
    /// Years, newest first.
    public var years: [CountedValue]
    /// Place names, most photos first.
    public var places: [CountedValue]
    /// People with at least ``minimumPhotosPerPerson`` photos, most photos first.
    public var people: [CountedValue]

    /// Reads the counts from `database`.
    public init(database: PhotoIndexDatabase, minimumPhotosPerPerson: Int = PersonCache.defaultMinimumPhotos) throws(PhotoIndexError) {
        self.minimumPhotosPerPerson = max(1, minimumPhotosPerPerson)
        let minimum = self.minimumPhotosPerPerson
        (photos, unreadable, untrustedDates, years, places, people) = try database.read { db in
            let photos = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photos") ?? 0
            let unreadable = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photos WHERE error IS NOT NULL") ?? 0
            let untrusted = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photos WHERE date_trusted = 0 AND error IS NULL") ?? 0
            let years = try Row.fetchAll(db, sql: "SELECT year, COUNT(*) AS n FROM photos WHERE year IS NOT NULL AND error IS NULL GROUP BY year ORDER BY year DESC")
                .map { CountedValue(value: String($0["year"] as Int), count: $0["n"]) }
            let places = try Row.fetchAll(db, sql: "SELECT place, COUNT(*) AS n FROM photos WHERE place IS NOT NULL AND error IS NULL GROUP BY place ORDER BY n DESC, place")
                .map { CountedValue(value: $0["place"], count: $0["n"]) }
            let people = try Row.fetchAll(db, sql: """
                SELECT name, COUNT(*) AS n FROM people JOIN photos ON photos.id = people.photo_id WHERE photos.error IS NULL
                GROUP BY name HAVING COUNT(*) >= ? ORDER BY n DESC, name
                """, arguments: [minimum]).map { CountedValue(value: $0["name"], count: $0["n"]) }
            return (photos, unreadable, untrusted, years, places, people)
        }
    }
}
