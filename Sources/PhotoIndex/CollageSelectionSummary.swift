import Foundation

/// Every indexed photo of a collage's source, counted by what became of it: chosen, kept as a
/// backup, or left out and why. Unlike ``CollageSelection/rejected`` (the closest candidates of
/// each kind, by name), nothing is left uncounted, so "Ana has 21 photos but none qualifies"
/// is answered group by group (``explanation``), with the smaller face share that would let
/// more of a person's photos in (``suggestedFaceShare``).
public struct CollageSelectionSummary: Sendable, Hashable, Codable {
    /// What the collage is about.
    public var source: CollageSource
    /// The date range applied.
    public var range: DateRangePreset
    /// The face share a person's face had to exceed (``CollageRequest/minimumFaceShare``).
    public var minimumFaceShare: Double
    /// The quality threshold applied (0.5, or lower when too few photos passed).
    public var qualityThreshold: Double
    /// Photos of the source in the index, readable or not, in any date range.
    public var indexed = 0
    /// Chosen.
    public var chosen = 0
    /// Kept as backups for chosen photos that cannot be loaded.
    public var backups = 0
    /// Recorded as unreadable when they were indexed.
    public var unreadable = 0
    /// Taken outside the date range (or undated, with a range).
    public var outsideDateRange = 0
    /// The person's face covers ``minimumFaceShare`` of the photo or less.
    public var faceTooSmall = 0
    /// The person is named in the photo but has no face box.
    public var noFaceBox = 0
    /// The quality is not above ``qualityThreshold``.
    public var belowQuality = 0
    /// A near-duplicate of a chosen photo or a backup.
    public var nearDuplicates = 0
    /// Qualified, but scored below the chosen photos and the backups.
    public var rankedLower = 0
    /// A smaller face share (0.01 steps) that lets ``admittedBySuggestedFaceShare`` more of the
    /// person's photos pass the face rule, when the collage has fewer photos than asked for
    /// because of it.
    public var suggestedFaceShare: Double?
    /// How many more photos pass the face rule with ``suggestedFaceShare``.
    public var admittedBySuggestedFaceShare = 0

    /// An empty summary for `source` in `range`.
    public init(source: CollageSource, range: DateRangePreset, minimumFaceShare: Double, qualityThreshold: Double) {
        self.source = source
        self.range = range
        self.minimumFaceShare = minimumFaceShare
        self.qualityThreshold = qualityThreshold
    }

    /// The groups of photos left out, largest first, each as a count and its reason
    /// ("18 where Ana's face covers 15% of the photo or less").
    public var rejectedGroups: [(count: Int, reason: String)] {
        var person = "the person"
        if case .person(let name) = source { person = name }
        let groups: [(Int, String)] = [
            (faceTooSmall, "where \(person)'s face covers \(Self.percent(minimumFaceShare)) of the photo or less"),
            (noFaceBox, "naming \(person) without a face box"),
            (unreadable, "unreadable (recorded with the error when indexed)"),
            (outsideDateRange, "outside the date range (\(range.rawValue))"),
            (belowQuality, String(format: "of quality %.1f or less", qualityThreshold)),
            (nearDuplicates, "near-duplicates of chosen photos"),
            (rankedLower, "ranked below the chosen photos and backups"),
        ]
        // Largest first; equal counts keep the order above.
        let present = groups.filter { $0.0 > 0 }
        return present.indices.sorted { (present[$0].0, $1) > (present[$1].0, $0) }.map { present[$0] }
    }

    /// The whole account in one sentence: "Ana is in 21 indexed photos: 2 chosen; left out:
    /// 18 where Ana's face covers 15% of the photo or less, 1 unreadable (…)".
    public var explanation: String {
        let subject: String
        switch source {
        case .person(let name):
            subject = indexed == 0 ? "no indexed photo names \(name)" : "\(name) is in \(Self.photos(indexed))"
        case .year(let year):
            subject = indexed == 0 ? "no indexed photo was taken in \(year)" : "\(Self.photos(indexed)) taken in \(year)"
        case .place(let name):
            subject = indexed == 0 ? "no indexed photo has a place matching \"\(name)\"" : "\(Self.photos(indexed)) at \"\(name)\""
        case .area(let latitude, let longitude, let radius):
            let area = String(format: "within %g km of %g,%g", radius, latitude, longitude)
            subject = indexed == 0 ? "no indexed photo was taken \(area)" : "\(Self.photos(indexed)) taken \(area)"
        case .theme(let theme):
            subject = indexed == 0 ? "no indexed photo has the theme \"\(theme)\" (`memora index stats` lists the themes)"
                : "\(Self.photos(indexed)) of the theme \"\(theme)\""
        case .everything:
            subject = indexed == 0 ? "the index has no photos" : Self.photos(indexed)
        }
        guard indexed > 0 else { return subject }
        var text = subject + ": \(chosen) chosen" + (backups > 0 ? ", \(backups) kept as backups" : "")
        let groups = rejectedGroups
        if !groups.isEmpty { text += "; left out: " + groups.map { "\($0.count) \($0.reason)" }.joined(separator: ", ") }
        return text
    }

    /// What to do when the face rule left out photos the collage needed:
    /// "--min-face-share 0.05 lets 15 more photos of Ana pass the face rule (now 0.15)".
    public var faceShareAdvice: String? {
        guard let suggestedFaceShare, case .person(let name) = source else { return nil }
        return String(format: "a smaller face share lets more photos of %@ in: --min-face-share %.2f admits %d more (now %.2f: the face must cover more than %@ of the photo)",
                      name, suggestedFaceShare, admittedBySuggestedFaceShare, minimumFaceShare, Self.percent(minimumFaceShare))
    }

    /// "1 indexed photo", "21 indexed photos".
    static func photos(_ count: Int) -> String { count == 1 ? "1 indexed photo" : "\(count) indexed photos" }

    /// A share as a percentage without needless decimals ("15%", "2.5%").
    static func percent(_ share: Double) -> String { String(format: "%g%%", (share * 1000).rounded() / 10) }

    /// The face share to suggest when the face rule left out photos with `shares` (each the
    /// person's largest face share, above 0) and `needed` more photos are wanted: the largest
    /// 0.01 step strictly below the `needed`-th largest share (or the smallest), with how many it admits.
    static func suggestedFaceShare(shares: [Double], needed: Int) -> (share: Double, admits: Int)? {
        let sorted = shares.filter { $0 > 0 }.sorted(by: >)
        guard needed > 0, !sorted.isEmpty else { return nil }
        let target = sorted[min(needed, sorted.count) - 1]
        // Strictly below the target, by a margin a rounding error cannot cross (a 4% face: 0.03).
        let share = max(0.01, (target * 100 - 1e-6).rounded(.down) / 100)
        let admits = sorted.filter { $0 > share }.count
        return admits > 0 ? (share, admits) : nil
    }
}
