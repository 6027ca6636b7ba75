public import Foundation
import GRDB
public import MemoraSystem

/// What a memory collage is about.
public enum CollageSource: Sendable, Hashable, Codable {
    /// The photos taken in a year (in their own time zone).
    case year(Int)
    /// The photos whose place name matches (case-insensitive, any part: "Lyon" matches "Lyon, France").
    case place(String)
    /// The photos taken within `radiusKilometres` of a position (great-circle distance).
    case area(latitude: Double, longitude: Double, radiusKilometres: Double)
    /// The photos showing a person: their name (any case), or their number (`memora people`) when no
    /// one is called so (a person with no name yet too: "person 3" in the notes).
    case person(String)
    /// The photos of a theme ("beach", "food": ``ThemeClustering``).
    case theme(String)
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
    /// For a person collage, the share of the photo the person's largest face box must exceed
    /// (0 < share <= 1; the seed's 15%, ``CollageSelector/minimumFaceShare``).
    public var minimumFaceShare: Double
    /// "Now", for the date ranges (injected for tests).
    public var now: Date

    /// Creates a request.
    public init(source: CollageSource, range: DateRangePreset = .allTime, count: Int = 6, seed: UInt64 = 0,
                extraCandidates: Int = 4, minimumFaceShare: Double = CollageSelector.minimumFaceShare, now: Date = Date()) {
        self.source = source
        self.minimumFaceShare = minimumFaceShare
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

/// A candidate that was not chosen, or a photo that could not be drawn, with why.
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
    /// The near-duplicates left out for each chosen photo (by its id), best first: when a chosen
    /// photo cannot be loaded its cell goes to its twin first, then to the backups.
    public var twins: [String: [ChosenPhoto]]
    /// Candidates that were close but not chosen.
    public var rejected: [RejectedPhoto]
    /// The quality threshold applied (0.5, or lower when too few photos passed).
    public var qualityThreshold: Double
    /// Notes for the user ("only 4 photos; the collage has 4"); when the collage has fewer
    /// photos than asked for, the account of the photos left out (``CollageSelectionSummary/explanation``)
    /// and, for a person, the face share that would let more in.
    public var notes: [String]
    /// Every indexed photo of the source, counted by what became of it.
    public var summary: CollageSelectionSummary?

    /// Creates a selection (for a front end that picks photos itself).
    public init(photos: [ChosenPhoto], extras: [ChosenPhoto] = [], rejected: [RejectedPhoto] = [], qualityThreshold: Double = CollageSelector.qualityThreshold,
                notes: [String] = [], twins: [String: [ChosenPhoto]] = [:], summary: CollageSelectionSummary? = nil) {
        self.photos = photos
        self.summary = summary
        self.extras = extras
        self.twins = twins
        self.rejected = rejected
        self.qualityThreshold = qualityThreshold
        self.notes = notes
    }
}

/// The seed's selection algorithm over the index:
///
/// 1. candidates: readable photos of the source within the date range;
/// 2. for a person, only photos where that person's face box covers more than 15% of the image
///    (``CollageRequest/minimumFaceShare``);
/// 3. quality above 0.5; when fewer than `count` pass, the threshold steps down (0.4, 0.3,
///    0.2, 0.1, 0) and the result says so;
/// 4. spread across the date range: the candidates' time span is cut into `count` equal
///    periods, and each period gives its best photo; periods without photos leave their
///    slot to the best remaining photos overall;
/// 5. ranked by quality, with a seeded jitter of up to 0.1 (`SeededRandom`, so the same
///    seed gives the same collage on every platform and the next seed a different one);
/// 6. no two near-duplicates (perceptual hashes within ``PerceptualHash/nearDuplicateDistance``);
/// 7. the top `count` (default 6, at most 10), plus `extraCandidates` backups.
///
/// Every indexed photo of the source is counted by what became of it
/// (``CollageSelection/summary``); when fewer photos than `count` are chosen, the notes say why
/// the others were left out, group by group.
public struct CollageSelector: Sendable {
    /// The face share a person needs in a person collage by default (the seed's 15%).
    public static let minimumFaceShare = 0.15
    /// The seed's quality threshold.
    public static let qualityThreshold = 0.5
    /// The most a seeded jitter moves a score.
    public static let jitter = 0.1
    /// How many close candidates of each kind the result explains (the rest are counted in a note).
    public static let explainedRejections = 20
    /// How many near-duplicates of each chosen photo are kept as its stand-ins.
    public static let twinsPerPhoto = 2

    let database: PhotoIndexDatabase

    /// A selector over `database`.
    public init(database: PhotoIndexDatabase) {
        self.database = database
    }

    /// What the selection needs of each candidate; paths, orientations and faces are read
    /// afterwards for the few photos the result names (faces first for a person collage).
    struct Candidate {
        var id: String
        var takenAt: Date?
        var quality: Double
        var hash: UInt64?
        var faces: [FaceBox]
        var score = 0.0
    }

    /// The candidates of a request, and how many of the source's photos were left out before the choice.
    struct Candidates {
        var candidates: [Candidate] = []
        /// Photos of the source in the index, in any date range, readable or not.
        var indexed = 0
        var unreadable = 0
        var outsideDateRange = 0
    }

    /// A candidate left out: `reason`, followed by the path of `twin` for a near-duplicate.
    struct Rejection {
        var id: String
        var reason: String
        var twin: String?
    }

    /// A photo's path, orientation and faces.
    struct Details {
        var path: String
        var orientation: Int
        var faces: [FaceBox] = []
    }

    /// Chooses the photos for `request`. The candidates and their details are read in one
    /// snapshot of the index.
    public func select(_ request: CollageRequest) throws(PhotoIndexError) -> CollageSelection {
        guard (1...10).contains(request.count) else { throw .invalidRequest("a collage has 1 to 10 photos, not \(request.count)") }
        guard request.minimumFaceShare > 0 && request.minimumFaceShare <= 1 else {
            throw .invalidRequest("the minimum face share is a fraction of the photo above 0 and at most 1, not \(request.minimumFaceShare)")
        }
        return try database.read { db in try choose(request, in: db) }
    }

    private func choose(_ request: CollageRequest, in db: Database) throws -> CollageSelection {
        var request = request
        // A person by name, or by number (an unnamed person is "person 3" in the messages).
        var personNumber: Int64?
        if case .person(let reference) = request.source {
            switch try PhotoIndexDatabase.personReference(reference, in: db) {
            case .name(let name): request.source = .person(name)
            case .number(let id):
                personNumber = id
                request.source = .person("person \(id)")
            }
        }
        var rejections: [Rejection] = []
        let found = try loadCandidates(request, personNumber: personNumber, in: db)
        var candidates = found.candidates
        var summary = CollageSelectionSummary(source: request.source, range: request.range, minimumFaceShare: request.minimumFaceShare,
                                              qualityThreshold: Self.qualityThreshold)
        (summary.indexed, summary.unreadable, summary.outsideDateRange) = (found.indexed, found.unreadable, found.outsideDateRange)
        // The person's largest face share in each photo the face rule left out (for the advice).
        var smallFaces: [Double] = []
        if case .person(let name) = request.source {
            let minimum = request.minimumFaceShare
            candidates = candidates.filter { candidate in
                let share = candidate.faces.filter { $0.name?.caseInsensitiveCompare(name) == .orderedSame }.map(\.area).max() ?? 0
                guard share > minimum else {
                    if share == 0 { summary.noFaceBox += 1 } else { summary.faceTooSmall += 1; smallFaces.append(share) }
                    rejections.append(Rejection(id: candidate.id, reason: share == 0
                        ? "\(name) is named but has no face box in it"
                        : "\(name)'s face covers \(CollageSelectionSummary.percent(share)) of the photo (needs more than \(CollageSelectionSummary.percent(minimum)))"))
                    return false
                }
                return true
            }
        }
        /// When fewer photos than asked for are chosen: the account of the others, and the face share that lets more in.
        func shortfallNotes(chosen: Int) -> [String] {
            guard chosen < request.count else { return [] }
            if let (share, admits) = CollageSelectionSummary.suggestedFaceShare(shares: smallFaces, needed: request.count - chosen) {
                (summary.suggestedFaceShare, summary.admittedBySuggestedFaceShare) = (share, admits)
            }
            return [summary.explanation] + (summary.faceShareAdvice.map { [$0] } ?? [])
        }
        var notes: [String] = []
        guard !candidates.isEmpty else {
            let details = try loadDetails(of: rejections.map(\.id), facesOf: [], in: db)
            notes = shortfallNotes(chosen: 0)
            return CollageSelection(photos: [], extras: [], rejected: Self.resolve(rejections, details), qualityThreshold: Self.qualityThreshold,
                                    notes: notes, summary: summary)
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
        summary.qualityThreshold = threshold
        summary.belowQuality = candidates.count - passing.count
        if threshold < Self.qualityThreshold {
            notes.append(String(format: "only %d photos score above 0.5; the quality threshold was relaxed to %.1f", candidates.filter { $0.quality > Self.qualityThreshold }.count, threshold))
        }
        // The candidates just below the threshold are the close ones worth explaining.
        let belowThreshold = candidates.filter { !($0.quality > threshold || threshold == 0) }.sorted { $0.quality > $1.quality }
        for candidate in belowThreshold.prefix(Self.explainedRejections) {
            rejections.append(Rejection(id: candidate.id, reason: String(format: "quality %.2f is not above %.1f", candidate.quality, threshold)))
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
        // Near-duplicates left out, by the chosen photo they resemble: its stand-ins if it cannot be loaded.
        var twins: [String: [Candidate]] = [:]
        func setAside(_ candidate: Candidate, twinOf chosen: Candidate, reported: Bool = true) {
            summary.nearDuplicates += 1
            if reported { rejections.append(Rejection(id: candidate.id, reason: "a near-duplicate of ", twin: chosen.id)) }
            if twins[chosen.id, default: []].count < Self.twinsPerPhoto { twins[chosen.id, default: []].append(candidate) }
        }
        // First pass: the best photo of each period.
        for slot in 0..<request.count {
            for candidate in ranked where !used.contains(candidate.id) && period(candidate) == slot {
                if let twin = nearDuplicate(of: candidate) {
                    setAside(candidate, twinOf: twin)
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
                setAside(candidate, twinOf: twin)
                continue
            }
            chosen.append((candidate, String(format: "one of the best remaining photos (quality %.2f)", candidate.quality)))
        }
        var backups: [Candidate] = []
        for candidate in ranked where backups.count < request.extraCandidates && !used.contains(candidate.id) {
            used.insert(candidate.id)
            if let twin = nearDuplicate(of: candidate) {
                setAside(candidate, twinOf: twin, reported: false)
                continue
            }
            backups.append(candidate)
            // Candidates kept as backups are not reported as rejected.
        }
        let remaining = ranked.filter { !used.contains($0.id) }
        (summary.chosen, summary.backups, summary.rankedLower) = (chosen.count, backups.count, remaining.count)
        unexplained += max(0, remaining.count - Self.explainedRejections)
        for candidate in remaining.prefix(Self.explainedRejections) {
            let rival = chosen.first { period($0.0) == period(candidate) }
            rejections.append(Rejection(id: candidate.id, reason: rival.map { String(format: "its period's chosen photo scores higher (%.2f against %.2f)", $0.0.score, candidate.score) }
                ?? String(format: "ranked below the chosen photos (score %.2f)", candidate.score)))
        }
        if chosen.count < request.count {
            notes.append("only \(chosen.count) suitable photos; the collage has \(chosen.count)")
            notes += shortfallNotes(chosen: chosen.count)
        }
        if unexplained > 0 { notes.append("\(unexplained) further candidates scored lower and are not listed") }
        let drawn = chosen.map(\.0.id) + backups.map(\.id) + twins.values.flatMap { $0.map(\.id) }
        let details = try loadDetails(of: drawn + rejections.map(\.id) + rejections.compactMap(\.twin), facesOf: drawn, in: db)
        func photo(_ candidate: Candidate, reason: String) -> ChosenPhoto {
            let found = details[candidate.id]
            return ChosenPhoto(id: candidate.id, path: found?.path ?? candidate.id, takenAt: candidate.takenAt, quality: candidate.quality,
                               faces: found?.faces ?? [], orientation: found?.orientation ?? 1, reason: reason)
        }
        let photos = chosen.sorted { ($0.0.takenAt ?? .distantFuture, $0.0.id) < ($1.0.takenAt ?? .distantFuture, $1.0.id) }
            .map { photo($0.0, reason: $0.1) }
        let extras = backups.map { photo($0, reason: "a backup in case a chosen photo cannot be loaded") }
        let standIns = twins.mapValues { $0.map { photo($0, reason: "a near-duplicate, in case its twin cannot be loaded") } }
        return CollageSelection(photos: photos, extras: extras, rejected: Self.resolve(rejections, details), qualityThreshold: threshold, notes: notes,
                                twins: standIns, summary: summary)
    }

    /// The rejections with their paths (and their twins' paths).
    private static func resolve(_ rejections: [Rejection], _ details: [String: Details]) -> [RejectedPhoto] {
        rejections.map { rejection in
            RejectedPhoto(path: details[rejection.id]?.path ?? rejection.id,
                          reason: rejection.reason + (rejection.twin.map { details[$0]?.path ?? $0 } ?? ""))
        }
    }

    /// The candidates of the request's source and date range (the query is the photos table's:
    /// ``IndexedPhotoRecord/collageCandidates(_:in:)``).
    private func loadCandidates(_ request: CollageRequest, personNumber: Int64?, in db: Database) throws -> Candidates {
        if case .place(let name) = request.source, PhotoIndexDatabase.placeParts(name).isEmpty {
            throw PhotoIndexError.invalidRequest("the place name is empty")
        }
        return try IndexedPhotoRecord.collageCandidates(request, personNumber: personNumber, in: db)
    }

    /// Path and orientation of each of `ids`, and the faces of `facesOf`.
    private func loadDetails(of ids: [String], facesOf faceIDs: [String], in db: Database) throws -> [String: Details] {
        try IndexedPhotoRecord.collageDetails(of: ids, facesOf: faceIDs, in: db)
    }

    /// Great-circle distance in kilometres (haversine, Earth radius 6371 km).
    static func kilometres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let toRadians = Double.pi / 180
        let dLat = (lat2 - lat1) * toRadians, dLon = (lon2 - lon1) * toRadians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * toRadians) * cos(lat2 * toRadians) * sin(dLon / 2) * sin(dLon / 2)
        return 6371 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}
