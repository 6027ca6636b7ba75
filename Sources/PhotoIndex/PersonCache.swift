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
    /// People with at least ``minimumPhotosPerPerson`` photos, most photos first (hidden people left out).
    public var people: [CountedValue]
    /// Themes (``ThemeClustering``), most photos first.
    public var themes: [CountedValue] = []

    /// Reads the counts from `database`.
    public init(database: PhotoIndexDatabase, minimumPhotosPerPerson: Int = PersonCache.defaultMinimumPhotos) throws(PhotoIndexError) {
        self.minimumPhotosPerPerson = max(1, minimumPhotosPerPerson)
        let minimum = self.minimumPhotosPerPerson
        (photos, unreadable, untrustedDates, years, places, people, themes) = try database.read { db in
            let (photos, unreadable, untrusted) = try IndexedPhotoRecord.counts(db)
            let years = try IndexedPhotoRecord.yearCounts(db)
            let places = try IndexedPhotoRecord.placeCounts(db)
            let hidden = Set(try String.fetchAll(db, sql: "SELECT name FROM persons WHERE hidden = 1 AND name IS NOT NULL"))
            let people = try PhotoPersonRecord.counts(minimum: minimum, in: db).filter { !hidden.contains($0.value) }
            return (photos, unreadable, untrusted, years, places, people, try ThemeClustering.counts(in: db))
        }
    }
}
