import Foundation
import GRDB
import MemoraSystem
import Testing
@testable import PhotoIndex
import TestSupport

/// Splitting a person (`PhotoIndexDatabase.split`), on faces saved straight into the index with
/// embeddings chosen so that, without the user's decision, the clustering would put the faces
/// split off back where they were.
@Suite("Splitting a person")
struct PersonSplitTests {
    /// A 128-value embedding: person `axis` (0: Ana, 20: Cy), moved `wobble` along the next axis.
    static func embedding(_ axis: Int, _ wobble: Float) -> [Float] {
        var vector = [Float](repeating: 0, count: 128)
        vector[axis] = 1
        vector[axis + 1] = wobble
        return vector
    }

    @Test("the index stamps what it records with its clock: when a photo was indexed, when a person was made")
    func stampedWithClock() throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_900_000_000))
        let database = try PhotoIndexDatabase(path: try temporaryFolder("index-clock") + "/index.sqlite", clock: clock)
        let photos = Self.faces.map { name, embedding in
            IndexedPhoto(
                id: name, path: "/photos/\(name).jpg", size: 1, modified: Date(), imageHash: name, kind: .jpeg,
                takenAt: nil, utcOffset: nil, dateTrusted: false, latitude: nil, longitude: nil, place: nil, width: 400, height: 300,
                orientation: 1, keywords: [], people: [],
                faces: [FaceBox(name: nil, x: 0.3, y: 0.3, width: 0.2, height: 0.2, confidence: 0.9, embedding: embedding)],
                quality: 0.8, perceptualHash: nil, rating: nil, favorite: false, embedding: nil, error: nil)
        }
        try database.save(photos)
        clock.advance(by: .seconds(3600))
        _ = try PeopleClustering(database: database).update()
        let (indexed, made) = try database.read { db in
            (try Int64.fetchSet(db, sql: "SELECT indexed_at FROM photos"), try Int64.fetchSet(db, sql: "SELECT created_at FROM persons"))
        }
        #expect(indexed == [1_900_000_000_000])
        #expect(made == [1_900_003_600_000], "both people were made an hour later")
    }

    /// Ana in a0...a5 (a4 has a0's very face, so indexed again it would rejoin her), Cy in c0...c2.
    static let faces: [(String, [Float])] = [
        ("a0", embedding(0, 0)), ("a1", embedding(0, 0.05)), ("a2", embedding(0, 0.1)), ("a3", embedding(0, 0.15)),
        ("a4", embedding(0, 0)), ("a5", embedding(0, 0.06)),
        ("c0", embedding(20, 0)), ("c1", embedding(20, 0.05)), ("c2", embedding(20, 0.1)),
    ]

    /// Saves (or, indexed again, replaces) photo `name` with one face per embedding, left to right,
    /// the first at `left`, as the indexer does: the face rows are replaced and lose their person.
    static func save(_ name: String, _ embeddings: [[Float]], in library: Library, left: Double = 0.3) throws {
        let faces = embeddings.enumerated().map { number, embedding in
            FaceBox(name: nil, x: left + Double(number) * 0.3, y: 0.3, width: 0.2, height: 0.2, confidence: 0.9, embedding: embedding)
        }
        let photo = IndexedPhoto(
            id: name, path: library.folder + "/\(name).jpg", size: 1, modified: Date(), imageHash: name, kind: .jpeg,
            takenAt: Date(timeIntervalSince1970: 1_600_000_000), utcOffset: 0, dateTrusted: true, latitude: nil, longitude: nil,
            place: nil, width: 4000, height: 3000, orientation: 1, keywords: [], people: [], faces: faces, quality: 0.8,
            perceptualHash: nil, rating: nil, favorite: false, embedding: nil, error: nil)
        try library.database.write { db in try PhotoIndexDatabase.save(photo, at: Date(), in: db) }
    }

    /// An index of ``faces`` clustered into Ana (named by the user) and Cy.
    static func people() throws -> (library: Library, ana: Int64, cy: Int64) {
        let library = try Library()
        for (name, embedding) in faces { try save(name, [embedding], in: library) }
        _ = try PeopleClustering(database: library.database).update()
        let people = try library.database.people()
        let ana = try #require(people.first { $0.faceCount == 6 }, "\(people)").id
        let cy = try #require(people.first { $0.faceCount == 3 }, "\(people)").id
        try library.database.name(person: ana, "Ana")
        return (library, ana, cy)
    }

    /// The photos of person `id`, by photo id.
    static func photos(of id: Int64, in library: Library) throws -> Set<String> {
        try library.database.read { db in try PeopleClustering.faces(db) }.filter { $0.personID == id }.map(\.photoID).reduce(into: []) { $0.insert($1) }
    }

    @Test("a split moves the faces of the photos given to a new person; a dry run writes nothing; the split survives indexing again, an update and a rebuild")
    func split() throws {
        let (library, ana, cy) = try Self.people()
        defer { library.remove() }
        let a4 = library.folder + "/a4.jpg"

        let plan = try library.database.checkSplit(person: ana, photos: [a4, "a5"])
        #expect(plan.faceCount == 2 && plan.target == nil && !plan.joinsExistingPerson && plan.photos == [a4, library.folder + "/a5.jpg"],
                "a path and a photo id: \(plan)")
        #expect(try library.database.person(ana).faceCount == 6 && library.database.people().count == 2, "a dry run writes nothing")

        let split = try library.database.split(person: ana, photos: [a4, "a5", a4])
        let other = try #require(split.target)
        #expect(split.faceCount == 2 && split.person.id == ana && split.name == nil, "\(split)")
        #expect(try Self.photos(of: other, in: library) == ["a4", "a5"] && Self.photos(of: ana, in: library) == ["a0", "a1", "a2", "a3"])
        let newcomer = try library.database.person(other)
        #expect(newcomer.name == nil && !newcomer.isNamedByUser, "\(newcomer)")
        #expect(try library.database.photo(atPath: a4)?.people == [], "Ana's name left the photos split off")
        #expect(try library.database.photo(atPath: library.folder + "/a0.jpg")?.people == ["Ana"])

        // Indexed again (their face rows replaced, a little to the side): the faces lose their person, and the pins give it back.
        try Self.save("a4", [Self.embedding(0, 0)], in: library, left: 0.32)
        try Self.save("a5", [Self.embedding(0, 0.06)], in: library, left: 0.28)
        #expect(try Self.photos(of: other, in: library).isEmpty, "indexing again clears the faces' person")
        let clustering = PeopleClustering(database: library.database)
        _ = try clustering.update()
        #expect(try Self.photos(of: other, in: library) == ["a4", "a5"], "the split survives indexing again")

        // A new photo of Ana joins her, not the new person; everything clustered again keeps the split.
        try Self.save("a6", [Self.embedding(0, 0.12)], in: library)
        let update = try clustering.update()
        #expect(update.joined == 1 && update.newPeople == 0, "\(update)")
        #expect(try Self.photos(of: ana, in: library) == ["a0", "a1", "a2", "a3", "a6"] && Self.photos(of: other, in: library) == ["a4", "a5"])
        let rebuilt = try clustering.rebuild()
        #expect(rebuilt.people == 3, "\(rebuilt)")
        #expect(try Self.photos(of: ana, in: library) == ["a0", "a1", "a2", "a3", "a6"], "one cluster, but the pinned faces stay out of it")
        #expect(try Self.photos(of: other, in: library) == ["a4", "a5"] && Self.photos(of: cy, in: library) == ["c0", "c1", "c2"])
        #expect(try library.database.person(ana).name == "Ana" && library.database.photo(atPath: a4)?.people == [])
        _ = try clustering.update()
        #expect(try Self.photos(of: other, in: library) == ["a4", "a5"])

        // A photo no longer indexed takes its pin with it.
        try library.database.write { db in try IndexedPhotoRecord.delete(atPaths: [a4], in: db) }
        _ = try clustering.rebuild()
        #expect(try library.database.read { db in try PinnedFaceRecord.fetchAll(db) }.map(\.photoID) == ["a5"])
    }

    @Test("with a name: a new person of that name, or the one person already called so; a merge takes the pins along")
    func named() throws {
        let (library, ana, cy) = try Self.people()
        defer { library.remove() }
        let bea = try library.database.split(person: ana, photos: ["a4"], name: " Bea ")
        let beaID = try #require(bea.target)
        #expect(try bea.name == "Bea" && !bea.joinsExistingPerson && library.database.person(beaID).isNamedByUser, "\(bea)")
        #expect(try library.database.photo(atPath: library.folder + "/a4.jpg")?.people == ["Bea"])
        let again = try library.database.split(person: ana, photos: ["a5"], name: "bea")
        #expect(again.target == beaID && again.joinsExistingPerson && again.name == "Bea", "\(again)")
        #expect(try Self.photos(of: beaID, in: library) == ["a4", "a5"])

        // Bea is Cy after all: the pins follow the merge, so a rebuild leaves a4 and a5 with Cy.
        try library.database.merge(person: beaID, into: cy)
        _ = try PeopleClustering(database: library.database).rebuild()
        #expect(try Self.photos(of: cy, in: library) == ["a4", "a5", "c0", "c1", "c2"] && Self.photos(of: ana, in: library) == ["a0", "a1", "a2", "a3"])
    }

    @Test("a name another person has is refused (any case); a person's number works where a name does, an unnamed person's too")
    func namesAndNumbers() throws {
        let (library, ana, cy) = try Self.people()
        defer { library.remove() }
        do {
            try library.database.name(person: cy, " ana ")
            Issue.record("a second person called Ana")
        } catch {
            #expect(error.code == .invalidRequest && error.message.contains("person \(ana) is already called") && error.message.contains("memora people merge \(cy) \(ana)"),
                    "\(error)")
        }
        #expect(try library.database.person(cy).name == nil, "nothing written")
        try library.database.name(person: ana, "ANA")  // renaming oneself is no clash
        #expect(throws: PhotoIndexError.self) { try library.database.name(person: cy, "Cy\u{202E}reversed") }
        #expect(throws: PhotoIndexError.self) { try library.database.name(person: cy, String(repeating: "e\u{301}", count: 200)) }

        // A collage by number: Ana's number is Ana; Cy, unnamed, is person N, his faces chosen by number.
        let selector = CollageSelector(database: library.database)
        let byNumber = try selector.select(CollageRequest(source: .person("\(ana)"), minimumFaceShare: 0.01))
        let byName = try selector.select(CollageRequest(source: .person("ana"), minimumFaceShare: 0.01))
        #expect(!byNumber.photos.isEmpty && byNumber.photos.map(\.path) == byName.photos.map(\.path), "\(byNumber.notes)")
        let unnamed = try selector.select(CollageRequest(source: .person("\(cy)"), count: 3, minimumFaceShare: 0.01))
        #expect(Set(unnamed.photos.map { SystemPath.fileName(of: $0.path) }) == ["c0.jpg", "c1.jpg", "c2.jpg"], "\(unnamed.photos.map(\.path)) \(unnamed.notes)")
        let small = try selector.select(CollageRequest(source: .person("\(cy)")))
        #expect(small.photos.isEmpty && small.notes.joined().contains("person \(cy)'s face covers"), "the face rule speaks of person N: \(small.notes)")
        try library.database.name(person: cy, "Cy")
        #expect(try selector.select(CollageRequest(source: .person("\(cy)"), count: 3, minimumFaceShare: 0.01)).photos.count == 3)
    }

    @Test("refused, with nothing written: no such person, no photos, a photo not indexed or not of the person, all the person's faces, a name that cannot be")
    func refusals() throws {
        let (library, ana, cy) = try Self.people()
        defer { library.remove() }
        try Self.save("pair", [Self.embedding(0, 0.02), Self.embedding(20, 0.02)], in: library)
        _ = try PeopleClustering(database: library.database).update()
        try library.database.name(person: cy, "Cy")
        try Self.save("stranger", [Self.embedding(60, 0)], in: library)
        let before = try library.database.people(includingHidden: true)
        #expect(before.first { $0.id == ana }?.faceCount == 7 && before.first { $0.id == cy }?.faceCount == 4, "\(before)")

        func refused(_ person: Int64, _ photos: [String], name: String? = nil, saying words: String) throws {
            for dryRun in [true, false] {
                do {
                    if dryRun {
                        _ = try library.database.checkSplit(person: person, photos: photos, name: name)
                    } else {
                        try library.database.split(person: person, photos: photos, name: name)
                    }
                    Issue.record("split \(person) \(photos) \(name ?? "") was not refused")
                } catch {
                    #expect(error.code == .invalidRequest && error.message.contains(words), "\(error.message)")
                }
            }
            #expect(try library.database.people(includingHidden: true) == before, "nothing written")
        }
        try refused(999, ["a4"], saying: "there is no person 999; `memora people` lists them")
        try refused(ana, [], saying: "name the photos")
        try refused(ana, ["a4", library.folder + "/nowhere.jpg"], saying: "nowhere.jpg is not in the photo index")
        try refused(ana, ["a4", "c0"], saying: "c0.jpg has no face of person \(ana)")
        try refused(ana, ["stranger"], saying: "has no face of person")
        try refused(cy, ["c0", "c1", "c2", "pair"], saying: "nothing of them would remain. To call them someone else, rename them: memora people name \(cy) NAME")
        try refused(ana, ["a4"], name: "ANA", saying: "person \(ana) is called ANA already")
        try refused(ana, ["a4"], name: "two\nlines", saying: "one line of text")
        try refused(ana, ["a4", "pair"], name: "Cy", saying: "person \(cy) (Cy) is in \(library.folder)/pair.jpg already")
        let bea = try #require(try library.database.split(person: ana, photos: ["a4"], name: "Bea").target)
        #expect(throws: PhotoIndexError.self, "two people called Bea") { try library.database.name(person: cy, "Bea") }
        #expect(try Self.photos(of: bea, in: library) == ["a4"] && library.database.person(cy).name == "Cy")
    }
}

@Suite("Merging people")
struct PersonMergeTests {
    @Test("a merge survives an update and a rebuild; the merged person's photos are listed, newest first")
    func mergeSurvivesRebuild() throws {
        let (library, ana, cy) = try PersonSplitTests.people()
        defer { library.remove() }
        try library.database.merge(person: cy, into: ana)
        #expect(try library.database.person(ana).faceCount == 9)
        #expect(throws: PhotoIndexError.self) { try library.database.person(cy) }
        _ = try PeopleClustering(database: library.database).update()
        #expect(try library.database.person(ana).faceCount == 9)
        // A rebuild clusters the faces again and finds two groups; both were Ana's, whom the user merged: both stay hers.
        _ = try PeopleClustering(database: library.database).rebuild()
        let people = try library.database.people()
        #expect(people.count == 1 && people.first?.id == ana && people.first?.faceCount == 9, "\(people)")
        #expect(try library.database.person(ana).name == "Ana")
        let photos = try library.database.photos(ofPerson: ana)
        #expect(Set(photos) == Set(PersonSplitTests.faces.map { library.folder + "/\($0.0).jpg" }))
        #expect(throws: PhotoIndexError.self) { try library.database.photos(ofPerson: 9999) }
    }

    @Test("without a merge, a rebuild keeps two people apart")
    func rebuildWithoutMerge() throws {
        let (library, ana, cy) = try PersonSplitTests.people()
        defer { library.remove() }
        _ = try PeopleClustering(database: library.database).rebuild()
        #expect(Set(try library.database.people().map(\.id)) == [ana, cy])
    }
}

@Suite("People suggestions")
struct PersonSuggestionTests {
    /// A 128-value embedding at `x`, `y` in the plane of axes `axis` and `axis + 1` (a person's own corner of the space).
    static func point(_ axis: Int, _ x: Float, _ y: Float = 0) -> [Float] {
        var vector = [Float](repeating: 0, count: 128)
        vector[axis] = 1 + x
        vector[axis + 1] = y
        return vector
    }

    @Test("faces too few or a little too far apart for a person are suggested; accepted, they are a person that a rebuild keeps; two faces of one photo are never one suggestion")
    func suggestAndAccept() throws {
        let library = try Library()
        defer { library.remove() }
        // Ana: three clear photos whose faces are 0.35, 0.52 and 0.52 apart (no face has both others within 0.5).
        let x = Float((0.516 * 0.516 - 0.521 * 0.521 + 0.347 * 0.347) / (2 * 0.347))
        let y = Float((0.516 * 0.516 - Double(x) * Double(x)).squareRoot())
        try PersonSplitTests.save("ana1", [Self.point(0, 0)], in: library)
        try PersonSplitTests.save("ana2", [Self.point(0, 0.347)], in: library)
        try PersonSplitTests.save("ana3", [Self.point(0, x, y)], in: library)
        // Bo: two photos, 0.3 apart. Cy and Di: one photo with both, 0.2 apart (never one person), and Eve far from everyone.
        try PersonSplitTests.save("bo1", [Self.point(20, 0)], in: library)
        try PersonSplitTests.save("bo2", [Self.point(20, 0.3)], in: library)
        try PersonSplitTests.save("pair", [Self.point(40, 0), Self.point(40, 0.2)], in: library)
        try PersonSplitTests.save("eve", [Self.point(60, 0)], in: library)
        let clustering = PeopleClustering(database: library.database)
        let summary = try clustering.update()
        #expect(summary.people == 0, "at 0.5 none of them makes a person: \(summary)")

        let suggestions = try clustering.suggestions()
        #expect(suggestions.map { $0.photos.map { SystemPath.fileName(of: $0) } } == [["ana1.jpg", "ana2.jpg", "ana3.jpg"], ["bo1.jpg", "bo2.jpg"]], "\(suggestions)")
        #expect(suggestions.map(\.number) == [1, 2] && abs(suggestions[0].distance - 0.516) < 0.01)

        let ana = try clustering.accept(suggestion: 1, name: "Ana")
        #expect(ana.name == "Ana" && ana.photoCount == 3 && ana.isNamedByUser)
        #expect(try clustering.suggestions().map(\.photos.count) == [2], "Bo is suggestion 1 now")
        #expect(throws: PhotoIndexError.self) { try clustering.accept(suggestion: 2) }
        #expect(throws: PhotoIndexError.self, "a taken name") { try clustering.accept(suggestion: 1, name: "ana") }
        _ = try clustering.rebuild()
        #expect(try library.database.person(ana.id).photoCount == 3, "the faces stay together: they are pinned")
        #expect(try library.database.photo(atPath: library.folder + "/ana3.jpg")?.people == ["Ana"])
    }

    @Test("the names a person confirmed for a photo's faces, left to right; a name spread from metadata or a hidden person's is not one")
    func confirmedNames() throws {
        let (library, ana, cy) = try PersonSplitTests.people()
        defer { library.remove() }
        try PersonSplitTests.save("both", [PersonSplitTests.embedding(20, 0.02), PersonSplitTests.embedding(0, 0.02)], in: library)
        _ = try PeopleClustering(database: library.database).update()
        #expect(try library.database.confirmedNames(inPhoto: library.folder + "/both.jpg") == ["Ana"], "Cy has no name yet")
        try library.database.name(person: cy, "Cy")
        #expect(try library.database.confirmedNames(inPhoto: "both") == ["Cy", "Ana"], "left to right, by id too")
        try library.database.setHidden(person: ana, true)
        #expect(try library.database.confirmedNames(inPhoto: library.folder + "/both.jpg") == ["Cy"])
        #expect(try library.database.confirmedNames(inPhoto: library.folder + "/not-indexed.jpg").isEmpty)
    }
}

