public import Foundation
import GRDB

/// What a memory collage is about.
public enum CollageSource: Sendable, Hashable, Codable {
    /// The photos taken in a year (in their own time zone).
    case year(Int)
    /// The photos whose place name matches (case-insensitive, any part: "Lyon" matches "Lyon, France").
    case place(String)
    /// The photos taken within `radiusKilometres` of a position (great-circle distance).
    case area(latitude: Double, longitude: Double, radiusKilometres: Double)
    /// The photos showing a person.
    case person(String)
    /// Every photo.
    case everything
}

/// The seed's date-range presets, a filter on any source.
public enum DateRangePreset: String, Sendable, Hashable, Codable, CaseIterable {
    /// No limit.
    case allTime = "all-time"
    /// The twelve months before now.
    case lastYear = "last-year"
    /// The five years before now.
    case lastFiveYears = "last-5-years"

    /// The earliest date allowed, relative to `now`.
    func start(now: Date) -> Date? {
        let calendar = Calendar(identifier: .gregorian)
        switch self {
        case .allTime: return nil
        case .lastYear: return calendar.date(byAdding: .year, value: -1, to: now)
        case .lastFiveYears: return calendar.date(byAdding: .year, value: -5, to: now)
        }
    }
}

/// A request for a collage's photos.
public struct CollageRequest: Sendable, Hashable, Codable {
    /// What the collage is about.
    public var source: CollageSource
    /// The date range.
    public var range: DateRangePreset
    /// How many photos (1...10; the seed's 6 by default).
    public var count: Int
    /// The shuffle seed: the same seed gives the same photos for the same index; "shuffle" is the next seed.
    public var seed: UInt64
    /// Backup photos returned for photos that fail to load.
    public var extraCandidates: Int
    /// "Now", for the date ranges (injected for tests).
    public var now: Date

    /// Creates a request.
    public init(source: CollageSource, range: DateRangePreset = .allTime, count: Int = 6, seed: UInt64 = 0,
                extraCandidates: Int = 4, now: Date = Date()) {
        self.source = source
        self.range = range
        self.count = count
        self.seed = seed
        self.extraCandidates = extraCandidates
        self.now = now
    }
}

/// One photo chosen, with why.
public struct ChosenPhoto: Sendable, Hashable, Codable {
    /// The photo's id.
    public var id: String
    /// Its path.
    public var path: String
    /// When it was taken.
    public var takenAt: Date?
    /// Its quality score.
    public var quality: Double
    /// Its face boxes (for the crop).
    public var faces: [FaceBox]
    /// Its orientation (1...8), for mapping the faces onto the upright image.
    public var orientation: Int
    /// Why it was chosen.
    public var reason: String

    /// Creates a chosen photo (for a front end that picks photos itself).
    public init(id: String, path: String, takenAt: Date?, quality: Double, faces: [FaceBox], orientation: Int, reason: String) {
        self.id = id
        self.path = path
        self.takenAt = takenAt
        self.quality = quality
        self.faces = faces
        self.orientation = orientation
        self.reason = reason
    }
}

/// A candidate that was not chosen, with why.
public struct RejectedPhoto: Sendable, Hashable, Codable {
    /// The photo's path.
    public var path: String
    /// Why it was left out.
    public var reason: String
}

/// The photos of a collage and the reasoning behind them.
public struct CollageSelection: Sendable, Hashable, Codable {
    /// The chosen photos, oldest first.
    public var photos: [ChosenPhoto]
    /// Backups, best first, used when a chosen photo cannot be loaded.
    public var extras: [ChosenPhoto]
    /// Candidates that were close but not chosen.
    public var rejected: [RejectedPhoto]
    /// The quality threshold applied (0.5, or lower when too few photos passed).
    public var qualityThreshold: Double
    /// Notes for the user ("only 4 photos; the collage has 4").
    public var notes: [String]

    /// Creates a selection (for a front end that picks photos itself).
    public init(photos: [ChosenPhoto], extras: [ChosenPhoto] = [], rejected: [RejectedPhoto] = [], qualityThreshold: Double = CollageSelector.qualityThreshold, notes: [String] = []) {
        self.photos = photos
        self.extras = extras
        self.rejected = rejected
        self.qualityThreshold = qualityThreshold
        self.notes = notes
    }
}

/// The seed's selection algorithm over the index:
///
/// 1. candidates: readable photos of the source within the date range;
/// 2. for a person, only photos where that person's face box covers more than 15% of the image;
/// 3. quality above 0.5; when fewer than `count` pass, the threshold steps down (0.4, 0.3,
///    0.2, 0.1, 0) and the result says so;
/// 4. spread across the date range: the candidates' time span is cut into `count` equal
///    periods, and each period gives its best photo; periods without photos leave their
///    slot to the best remaining photos overall;
/// 5. ranked by quality, with a seeded jitter of up to 0.1 (``SeededRandom``, so the same
///    seed gives the same collage on every platform and the next seed a different one);
/// 6. no two near-duplicates (perceptual hashes within ``PerceptualHash/nearDuplicateDistance``);
/// 7. the top `count` (default 6, at most 10), plus `extraCandidates` backups.
public struct CollageSelector: Sendable {
    /// The face share a person needs in a person collage (the seed's 15%).
    public static let minimumFaceShare = 0.15
    /// The seed's quality threshold.
    public static let qualityThreshold = 0.5
    /// The most a seeded jitter moves a score.
    public static let jitter = 0.1
    /// How many close candidates of each kind the result explains (the rest are counted in a note).
    public static let explainedRejections = 20

    let database: PhotoIndexDatabase

    /// A selector over `database`.
    public init(database: PhotoIndexDatabase) {
        self.database = database
    }

    struct Candidate {
        var id: String
        var path: String
        var takenAt: Date?
        var quality: Double
        var hash: UInt64?
        var orientation: Int
        var faces: [FaceBox]
        var score = 0.0
    }

    /// Chooses the photos for `request`.
    public func select(_ request: CollageRequest) throws(PhotoIndexError) -> CollageSelection {
        guard (1...10).contains(request.count) else { throw .invalidRequest("a collage has 1 to 10 photos, not \(request.count)") }
        var rejected: [RejectedPhoto] = []
        var candidates = try loadCandidates(request)
        if case .person(let name) = request.source {
            candidates = candidates.filter { candidate in
                let share = candidate.faces.filter { $0.name?.caseInsensitiveCompare(name) == .orderedSame }.map(\.area).max() ?? 0
                guard share > Self.minimumFaceShare else {
                    rejected.append(RejectedPhoto(path: candidate.path, reason: share == 0
                        ? "\(name) is named but has no face box in it"
                        : String(format: "%@'s face covers %.0f%% of the photo (needs more than %.0f%%)", name, share * 100, Self.minimumFaceShare * 100)))
                    return false
                }
                return true
            }
        }
        var notes: [String] = []
        guard !candidates.isEmpty else {
            return CollageSelection(photos: [], extras: [], rejected: rejected, qualityThreshold: Self.qualityThreshold,
                                    notes: ["no photo matches this source and date range"])
        }
        // Seeded jitter, assigned in a stable order (by id) so it does not depend on the query's order.
        candidates.sort { $0.id < $1.id }
        var random = SeededRandom(seed: request.seed)
        for index in candidates.indices {
            let jitter = Double(random.next() >> 11) / Double(1 << 53) * Self.jitter
            candidates[index].score = candidates[index].quality + jitter
        }
        var threshold = Self.qualityThreshold
        var passing = candidates.filter { $0.quality > threshold }
        for lower in [0.4, 0.3, 0.2, 0.1, 0.0] where passing.count < request.count {
            threshold = lower
            passing = candidates.filter { $0.quality > threshold || lower == 0 }
        }
        if threshold < Self.qualityThreshold {
            notes.append(String(format: "only %d photos score above 0.5; the quality threshold was relaxed to %.1f", candidates.filter { $0.quality > Self.qualityThreshold }.count, threshold))
        }
        let passingIDs = Set(passing.map(\.id))
        // The candidates just below the threshold are the close ones worth explaining.
        let belowThreshold = candidates.filter { !passingIDs.contains($0.id) }.sorted { $0.quality > $1.quality }
        for candidate in belowThreshold.prefix(Self.explainedRejections) {
            rejected.append(RejectedPhoto(path: candidate.path, reason: String(format: "quality %.2f is not above %.1f", candidate.quality, threshold)))
        }
        var unexplained = max(0, belowThreshold.count - Self.explainedRejections)
        let ranked = passing.sorted { $0.score != $1.score ? $0.score > $1.score : $0.id < $1.id }

        // Periods across the candidates' time span.
        let dates = ranked.compactMap(\.takenAt)
        let start = dates.min() ?? Date(timeIntervalSince1970: 0), end = dates.max() ?? start
        let span = max(1, end.timeIntervalSince(start))
        func period(_ candidate: Candidate) -> Int {
            guard let taken = candidate.takenAt else { return request.count - 1 }
            return min(request.count - 1, Int(Double(request.count) * taken.timeIntervalSince(start) / span))
        }
        var chosen: [(Candidate, String)] = []
        func nearDuplicate(of candidate: Candidate) -> Candidate? {
            guard let hash = candidate.hash else { return nil }
            return chosen.map(\.0).first { other in other.hash.map { PerceptualHash.distance($0, hash) <= PerceptualHash.nearDuplicateDistance } ?? false }
        }
        var used: Set<String> = []
        // First pass: the best photo of each period.
        for slot in 0..<request.count {
            for candidate in ranked where !used.contains(candidate.id) && period(candidate) == slot {
                if let twin = nearDuplicate(of: candidate) {
                    rejected.append(RejectedPhoto(path: candidate.path, reason: "a near-duplicate of \(twin.path)"))
                    used.insert(candidate.id)
                    continue
                }
                chosen.append((candidate, String(format: "the best photo of period %d of %d (quality %.2f)", slot + 1, request.count, candidate.quality)))
                used.insert(candidate.id)
                break
            }
        }
        // Second pass: empty periods give their slot to the best remaining photos.
        for candidate in ranked where chosen.count < request.count && !used.contains(candidate.id) {
            used.insert(candidate.id)
            if let twin = nearDuplicate(of: candidate) {
                rejected.append(RejectedPhoto(path: candidate.path, reason: "a near-duplicate of \(twin.path)"))
                continue
            }
            chosen.append((candidate, String(format: "one of the best remaining photos (quality %.2f)", candidate.quality)))
        }
        var extras: [ChosenPhoto] = []
        for candidate in ranked where extras.count < request.extraCandidates && !used.contains(candidate.id) {
            used.insert(candidate.id)
            if nearDuplicate(of: candidate) != nil { continue }
            extras.append(chosenPhoto(candidate, reason: "a backup in case a chosen photo cannot be loaded"))
            // Candidates kept as backups are not reported as rejected.
        }
        let remaining = ranked.filter { !used.contains($0.id) }
        unexplained += max(0, remaining.count - Self.explainedRejections)
        for candidate in remaining.prefix(Self.explainedRejections) {
            let rival = chosen.first { period($0.0) == period(candidate) }
            rejected.append(RejectedPhoto(path: candidate.path, reason: rival.map { String(format: "its period's chosen photo scores higher (%.2f against %.2f)", $0.0.score, candidate.score) }
                ?? String(format: "ranked below the chosen photos (score %.2f)", candidate.score)))
        }
        if chosen.count < request.count {
            notes.append("only \(chosen.count) suitable photos; the collage has \(chosen.count)")
        }
        if unexplained > 0 { notes.append("\(unexplained) further candidates scored lower and are not listed") }
        let photos = chosen.sorted { ($0.0.takenAt ?? .distantFuture, $0.0.id) < ($1.0.takenAt ?? .distantFuture, $1.0.id) }
            .map { chosenPhoto($0.0, reason: $0.1) }
        return CollageSelection(photos: photos, extras: extras, rejected: rejected, qualityThreshold: threshold, notes: notes)
    }

    private func chosenPhoto(_ candidate: Candidate, reason: String) -> ChosenPhoto {
        ChosenPhoto(id: candidate.id, path: candidate.path, takenAt: candidate.takenAt, quality: candidate.quality,
                    faces: candidate.faces, orientation: candidate.orientation, reason: reason)
    }

    /// One query for the candidates and one for their faces.
    private func loadCandidates(_ request: CollageRequest) throws(PhotoIndexError) -> [Candidate] {
        var conditions = ["p.error IS NULL"]
        var arguments: [any DatabaseValueConvertible] = []
        var join = ""
        switch request.source {
        case .year(let year):
            conditions.append("p.year = ?")
            arguments.append(year)
        case .place(let name):
            // Every part of the query must be a part of the photo's place ("Lyon" or "Lyon, France").
            let parts = PhotoIndexDatabase.placeParts(name)
            guard !parts.isEmpty else { throw .invalidRequest("the place name is empty") }
            for (index, part) in parts.enumerated() {
                join += " JOIN place_parts pp\(index) ON pp\(index).photo_id = p.id AND pp\(index).part = ?"
                arguments.append(part)
            }
        case .area(let latitude, let longitude, let radius):
            // A bounding box in SQL, the exact distance below.
            let latitudeDelta = radius / 111.2
            let longitudeDelta = radius / max(0.01, 111.2 * cos(latitude * .pi / 180))
            conditions.append("p.latitude BETWEEN ? AND ? AND p.longitude BETWEEN ? AND ?")
            arguments += [latitude - latitudeDelta, latitude + latitudeDelta, longitude - longitudeDelta, longitude + longitudeDelta]
        case .person(let name):
            join = "JOIN people n ON n.photo_id = p.id AND n.name = ? COLLATE NOCASE"
            arguments.append(name)
        case .everything:
            break
        }
        if let start = request.range.start(now: request.now) {
            conditions.append("p.taken_at >= ? AND p.taken_at <= ?")
            arguments += [start.timeIntervalSince1970, request.now.timeIntervalSince1970]
        }
        let sql = "SELECT p.id, p.path, p.taken_at, p.quality, p.phash, p.orientation, p.latitude, p.longitude FROM photos p \(join) WHERE "
            + conditions.joined(separator: " AND ")
        return try database.read { db in
            var candidates: [Candidate] = []
            var positions: [String: Int] = [:]
            let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
            while let row = try rows.next() {
                if case .area(let latitude, let longitude, let radius) = request.source {
                    guard let lat: Double = row["latitude"], let lon: Double = row["longitude"],
                          Self.kilometres(latitude, longitude, lat, lon) <= radius else { continue }
                }
                let phash: Int64? = row["phash"]
                let taken: Double? = row["taken_at"]
                positions[row["id"]] = candidates.count
                candidates.append(Candidate(id: row["id"], path: row["path"], takenAt: taken.map(Date.init(timeIntervalSince1970:)),
                                            quality: row["quality"] ?? 0, hash: phash.map { UInt64(bitPattern: $0) },
                                            orientation: row["orientation"], faces: []))
            }
            if !candidates.isEmpty {
                let faceSQL = "SELECT f.photo_id, f.name, f.x, f.y, f.w, f.h FROM faces f JOIN photos p ON p.id = f.photo_id \(join) WHERE "
                    + conditions.joined(separator: " AND ") + " ORDER BY f.photo_id, f.ordinal"
                let faceRows = try Row.fetchCursor(db, sql: faceSQL, arguments: StatementArguments(arguments))
                while let row = try faceRows.next() {
                    guard let index = positions[row["photo_id"]] else { continue }
                    candidates[index].faces.append(FaceBox(name: row["name"], x: row["x"], y: row["y"], width: row["w"], height: row["h"]))
                }
            }
            return candidates
        }
    }

    /// Great-circle distance in kilometres (haversine, Earth radius 6371 km).
    static func kilometres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let toRadians = Double.pi / 180
        let dLat = (lat2 - lat1) * toRadians, dLon = (lon2 - lon1) * toRadians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * toRadians) * cos(lat2 * toRadians) * sin(dLon / 2) * sin(dLon / 2)
        return 6371 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}
