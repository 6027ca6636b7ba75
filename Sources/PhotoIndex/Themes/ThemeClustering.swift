import Foundation
import GRDB
import PhotoVisionCore

/// Groups photos by what they show (the seeds' "beaches, mountains, food"): DBSCAN on the scene
/// embeddings (cosine distance), each cluster named after the theme most of its photos' labels
/// name (PhotoVision's `SceneThemes`, a documented mapping from ImageNet classes to theme words). A
/// photo in no cluster, or in a cluster without a name, keeps the theme its own labels name, if any.
/// The themes are stored in `themes` (photo, theme), replaced on every run, and read by
/// `memora collage --theme` and `memora index stats`.
public struct ThemeClustering: Sendable {
    /// The index.
    public var database: PhotoIndexDatabase
    /// The largest cosine distance between two neighbouring photos of a theme.
    public var distance: Double
    /// The fewest photos that make a cluster.
    public var minimumPhotos: Int

    /// What a run found.
    public struct Summary: Sendable, Hashable, Codable {
        /// Clusters found.
        public var clusters = 0
        /// Clusters named after a theme.
        public var namedClusters = 0
        /// Each theme with its photo count.
        public var themes: [CountedValue] = []
    }

    /// A clustering of `database`'s scenes.
    public init(database: PhotoIndexDatabase, distance: Double = 0.45, minimumPhotos: Int = 3) {
        self.database = database
        self.distance = distance
        self.minimumPhotos = minimumPhotos
    }

    /// Clusters every photo with a scene embedding again and stores each photo's theme.
    public func run() throws(PhotoIndexError) -> Summary {
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT e.photo_id, e.vector, p.scene_theme FROM embeddings e JOIN photos p ON p.id = e.photo_id
                WHERE p.error IS NULL ORDER BY e.photo_id
                """).map { row -> (id: String, vector: [Float], theme: String?) in
                (row["photo_id"], HalfFloat.decode([UInt8](row["vector"] as Data)), row["scene_theme"])
            }
        }
        var summary = Summary()
        var themes = rows.map(\.theme)
        if !rows.isEmpty {
            let result: DBSCANResult
            do {
                result = try DBSCAN(epsilon: distance, minimumPoints: minimumPhotos, metric: .cosine).cluster(EmbeddingMatrix(rows.map(\.vector)))
            } catch {
                throw .vision(error)
            }
            summary.clusters = result.clusterCount
            for members in result.clusters {
                let votes = Dictionary(grouping: members.compactMap { rows[$0].theme }, by: { $0 }).mapValues(\.count)
                // A cluster takes the theme of more than half its photos.
                guard let best = votes.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }), best.value * 2 > members.count else { continue }
                summary.namedClusters += 1
                for member in members { themes[member] = best.key }
            }
        }
        try database.write { db in
            try db.execute(sql: "DELETE FROM themes")
            for (row, theme) in zip(rows, themes) {
                guard let theme else { continue }
                try db.execute(sql: "INSERT INTO themes (photo_id, theme) VALUES (?, ?)", arguments: [row.id, theme])
            }
            summary.themes = try Self.counts(in: db)
        }
        return summary
    }

    /// Each theme with its photo count, most photos first.
    static func counts(in db: Database) throws -> [CountedValue] {
        try Row.fetchAll(db, sql: "SELECT theme, COUNT(*) AS n FROM themes GROUP BY theme ORDER BY n DESC, theme")
            .map { CountedValue(value: $0["theme"], count: $0["n"]) }
    }

    /// v5: the table.
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE themes (
                photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
                theme TEXT NOT NULL,
                PRIMARY KEY (theme, photo_id)
            ) WITHOUT ROWID;
            CREATE INDEX idx_themes_photo ON themes(photo_id);
            """)
    }
}
