import Foundation
import Testing
@testable import PhotoIndex

@Suite("Collage selection explained")
struct CollageExplanationTests {
    /// Ana in 21 photos of 2018: 16 where her face covers 4%, 2 at 9%, 2 named without a face box, 1 unreadable.
    func anaLibrary() throws -> Rows {
        let rows = try Rows()
        for index in 0..<21 {
            let taken = String(format: "2018-%02d-%02dT12:00:00Z", index % 12 + 1, index / 12 + 1)
            let faces: [FaceBox]
            switch index {
            case 0..<16: faces = [FaceBox(name: "Ana", x: 0.4, y: 0.3, width: 0.2, height: 0.2)]   // 4%
            case 16..<18: faces = [FaceBox(name: "Ana", x: 0.4, y: 0.3, width: 0.3, height: 0.3)]  // 9%
            default: faces = []
            }
            try rows.add("ana\(index)", taken: taken, quality: 0.8, hash: distinctHash(index), people: ["Ana"], faces: faces,
                         error: index == 20 ? "the image is truncated" : nil)
        }
        try rows.add("ben", taken: "2018-05-01T00:00:00Z", quality: 0.9, hash: distinctHash(50), people: ["Ben"],
                     faces: [FaceBox(name: "Ben", x: 0, y: 0, width: 0.9, height: 0.9)])
        return rows
    }

    @Test("a person in 21 photos whose faces are all too small: the selection counts every group left out and names the face share that lets them in")
    func personTooSmall() throws {
        let rows = try anaLibrary()
        defer { rows.remove() }
        let selection = try rows.select(CollageRequest(source: .person("ana")))
        #expect(selection.photos.isEmpty)
        let summary = try #require(selection.summary)
        #expect(summary.indexed == 21 && summary.unreadable == 1 && summary.faceTooSmall == 18 && summary.noFaceBox == 2 && summary.chosen == 0)
        #expect(summary.rejectedGroups.map(\.count) == [18, 2, 1], "largest group first")
        #expect(summary.explanation.hasPrefix("ana is in 21 indexed photos: 0 chosen; left out: 18 where ana's face covers 15% of the photo or less, 2 naming ana without a face box, 1 unreadable"),
                "\(summary.explanation)")
        // Six photos are wanted: the sixth largest share is 4%, so 0.03 lets all 18 in.
        #expect(summary.suggestedFaceShare == 0.03 && summary.admittedBySuggestedFaceShare == 18)
        #expect(selection.notes.contains(summary.explanation))
        #expect(selection.notes.contains { $0.contains("--min-face-share 0.03 admits 18 more") }, "\(selection.notes)")
        #expect(selection.rejected.contains { $0.reason == "ana's face covers 4% of the photo (needs more than 15%)" })

        let lowered = try rows.select(CollageRequest(source: .person("Ana"), minimumFaceShare: 0.03))
        #expect(lowered.photos.count == 6 && lowered.summary?.faceTooSmall == 0 && lowered.summary?.chosen == 6)
        #expect(!lowered.notes.contains { $0.contains("--min-face-share") }, "enough photos: no advice")
        // Only the two 9% faces pass at 0.05; the advice then asks for less again.
        let partial = try rows.select(CollageRequest(source: .person("Ana"), minimumFaceShare: 0.05))
        #expect(partial.photos.count == 2 && partial.summary?.faceTooSmall == 16)
        #expect(partial.notes.contains { $0.contains("only 2 suitable photos") } && partial.notes.contains { $0.contains("--min-face-share 0.03 admits 16 more") })
    }

    @Test("the minimum face share is above 0 and at most 1")
    func faceShareRange() throws {
        let rows = try anaLibrary()
        defer { rows.remove() }
        for share in [0, -0.1, 1.01, .nan] {
            #expect(throws: PhotoIndexError.self) { try rows.select(CollageRequest(source: .person("Ana"), minimumFaceShare: share)) }
        }
        #expect(try rows.select(CollageRequest(source: .person("Ana"), minimumFaceShare: 1)).photos.isEmpty)
    }

    @Test("every indexed photo of the source is counted once: chosen, backup, unreadable, outside the range, low quality, near-duplicate, ranked lower")
    func everyPhotoCounted() throws {
        let rows = try Rows()
        defer { rows.remove() }
        let now = ISO8601DateFormatter().date(from: "2026-06-30T00:00:00Z")!
        for index in 0..<30 {
            try rows.add("p\(index)", taken: String(format: "2026-%02d-01T00:00:00Z", index % 6 + 1), quality: index < 3 ? 0.2 : 0.8,
                         hash: distinctHash(index), place: "Lyon, France")
        }
        // p10 (May) and its twin score best in their period: one is chosen, the other left out as its near-duplicate.
        try rows.add("p10", taken: "2026-05-01T00:00:00Z", quality: 0.95, hash: distinctHash(10), place: "Lyon, France")
        try rows.add("twin", taken: "2026-05-01T00:00:01Z", quality: 0.95, hash: distinctHash(10), place: "Lyon, France")
        try rows.add("old", taken: "2019-03-01T00:00:00Z", quality: 0.9, hash: distinctHash(40), place: "Lyon, France")
        try rows.add("broken", taken: "2026-03-01T00:00:00Z", quality: 0, hash: distinctHash(41), place: "Lyon, France", error: "no such file")
        let selection = try rows.select(CollageRequest(source: .place("Lyon"), range: .lastYear, now: now))
        let summary = try #require(selection.summary)
        #expect(summary.indexed == 33 && summary.unreadable == 1 && summary.outsideDateRange == 1 && summary.belowQuality == 3)
        #expect(summary.chosen == 6 && summary.backups == 4 && summary.nearDuplicates == 1)
        #expect(summary.unreadable + summary.outsideDateRange + summary.belowQuality + summary.nearDuplicates + summary.chosen + summary.backups
            + summary.rankedLower + summary.faceTooSmall + summary.noFaceBox == summary.indexed)
        #expect(summary.explanation.hasPrefix("33 indexed photos at \"Lyon\": 6 chosen, 4 kept as backups; left out: 17 ranked below"), "\(summary.explanation)")
        #expect(selection.notes.isEmpty, "six photos chosen: nothing to explain in the notes")
        let none = try rows.select(CollageRequest(source: .year(1999)))
        #expect(none.summary?.indexed == 0 && none.notes == ["no indexed photo was taken in 1999"])
    }
}
