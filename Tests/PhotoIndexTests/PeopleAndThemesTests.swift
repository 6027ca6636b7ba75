import Foundation
import GRDB
import ImageKit
import MemoraSystem
import PhotoVision
import PhotoVisionCore
import Testing
@testable import PhotoIndex

/// People from faces found in the pixels and themes from scenes, end to end through the index,
/// on photos made here around the real face the models script installs (fixtures/astronaut.png).
@Suite("People and themes")
struct PeopleAndThemesTests {
    static let vision: IndexVision? = try? IndexVision.installed()

    /// A 1200x800 JPEG with the astronaut's head pasted at each of `lefts` (the top 240 rows of a
    /// 400 px copy: her face, not the mission patch on her suit, which HOG takes for a weak face), on landscape `seed`.
    static func photo(at path: String, lefts: [Int], seed: UInt64) throws {
        let astronaut = try ImageDecoder.decode(contentsOf: VisionModels.installed.folder + "/fixtures/astronaut.png").resized(width: 400, height: 400)
        var canvas = try SyntheticPhoto.landscape(width: 1200, height: 800, seed: seed).pixels
        for left in lefts {
            for row in 0..<240 {
                for column in 0..<400 {
                    let from = (row * 400 + column) * 3, to = ((200 + row) * 1200 + left + column) * 3
                    for channel in 0..<3 { canvas[to + channel] = astronaut.pixels[from + channel] }
                }
            }
        }
        try ImageEncoder.write(try Image(width: 1200, height: 800, pixelFormat: .rgb8, pixels: canvas), to: path, as: .jpeg())
    }

    /// Her face in a copy pasted at `left`: about (left + 140, 265), 70 px wide.
    static func region(_ name: String, left: Int) -> (String, Double, Double, Double, Double) {
        (name, Double(left + 140) / 1200, 265.0 / 800, 70.0 / 1200, 70.0 / 800)
    }

    @Test("one face in five photos is one person, named by the two photos whose metadata names it; names survive re-indexing and a rebuild; two faces of one photo are never one person")
    func people() async throws {
        let vision = try #require(Self.vision, "the models are installed by scripts/install-models.sh")
        let library = try Library()
        defer { library.remove() }
        for number in 0..<5 {
            let path = library.folder + "/p\(number).jpg"
            try Self.photo(at: path, lefts: [100 + number * 60], seed: UInt64(number + 1))
            if number < 2 {
                try Data(sidecarXMP(date: "2020-0\(number + 1)-01T10:00:00", city: nil, country: nil, people: [],
                                    faces: [Self.region("Eileen", left: 100 + number * 60)]).utf8).write(to: URL(fileURLWithPath: path + ".xmp"))
            }
        }
        let indexer = PhotoIndexer(database: library.database, vision: vision)
        _ = try await indexer.index(DirectoryPhotoLibrary(root: library.folder))
        let clustering = PeopleClustering(database: library.database)
        let first = try clustering.update()
        let people = try library.database.people()
        #expect(first.newPeople == 1 && people.count == 1, "\(first) \(people)")
        let eileen = try #require(people.first)
        #expect(eileen.name == "Eileen" && !eileen.isNamedByUser && eileen.photoCount == 5 && eileen.faceCount == 5, "\(people)")
        #expect(try library.database.photo(atPath: library.folder + "/p4.jpg")?.people == ["Eileen"], "a photo no metadata names gets her name")

        // A person's name stays: a user names her, a photo is edited and indexed again, then everything is clustered again.
        try library.database.name(person: eileen.id, "Eileen Collins")
        try Self.photo(at: library.folder + "/p3.jpg", lefts: [300], seed: 40)
        _ = try await indexer.index(DirectoryPhotoLibrary(root: library.folder))
        let again = try clustering.update()
        #expect(again.joined == 1 && again.newPeople == 0, "the edited photo's face joins a known person: \(again)")
        #expect(try library.database.photo(atPath: library.folder + "/p3.jpg")?.people == ["Eileen Collins"])
        let rebuilt = try clustering.rebuild()
        let after = try library.database.people()
        #expect(rebuilt.people == 1 && rebuilt.newPeople == 0, "\(rebuilt) \(after)")
        #expect(after.contains { $0.id == eileen.id && $0.name == "Eileen Collins" && $0.isNamedByUser }, "\(after)")
        #expect(try PersonCache(database: library.database, minimumPhotosPerPerson: 1).people.contains { $0.value == "Eileen Collins" && $0.count >= 5 })
        #expect(try !PersonCache(database: library.database, minimumPhotosPerPerson: 1).people.contains { $0.value == "Eileen" },
                "the old name is gone from her photos")

        // The same face twice in one photo (twins): never one person, whatever else the clustering decides.
        try Self.photo(at: library.folder + "/twins.jpg", lefts: [0, 700], seed: 9)
        _ = try await indexer.index(DirectoryPhotoLibrary(root: library.folder))
        for rebuilding in [false, true] {
            _ = rebuilding ? try clustering.rebuild() : try clustering.update()
            let faces = try library.database.read { db in try PeopleClustering.faces(db) }
            #expect(faces.count == 7)
            for person in Set(faces.compactMap(\.personID)) {
                let photos = faces.filter { $0.personID == person }.map(\.photoID)
                #expect(Set(photos).count == photos.count, "person \(person) holds two faces of one photo")
            }
        }

        // Hidden people leave the picker; a person that does not exist is a clear error.
        try library.database.setHidden(person: eileen.id, true)
        #expect(try !library.database.people().contains { $0.id == eileen.id } && library.database.people(includingHidden: true).contains { $0.id == eileen.id })
        #expect(try !PersonCache(database: library.database, minimumPhotosPerPerson: 1).people.contains { $0.value == "Eileen Collins" })
        #expect(throws: PhotoIndexError.self) { try library.database.name(person: 999, "Nobody") }
        #expect(throws: PhotoIndexError.self) { try library.database.merge(person: eileen.id, into: eileen.id) }
        #expect(throws: PhotoIndexError.self) { try library.database.checkMerge(person: 999, into: eileen.id) }
        #expect(try library.database.person(eileen.id).name == "Eileen Collins", "a hidden person is still found by number")
    }

    @Test("themes: photos clustered by scene, each cluster named after most of its photos; a photo in no cluster keeps its own; a collage of a theme")
    func themes() throws {
        let library = try Library()
        defer { library.remove() }
        #expect(try ThemeClustering(database: library.database).run().themes.isEmpty, "an empty index has no theme")
        // Scene embeddings around two directions, with the themes their labels named.
        func vector(_ axis: Int, _ wobble: Float) -> [Float] {
            var vector = [Float](repeating: 0, count: 64)
            vector[axis] = 1
            vector[(axis + 7) % 64] = wobble
            return vector
        }
        let photos: [(String, [Float], String?)] = [
            ("sea-1", vector(0, 0.05), "beach"), ("sea-2", vector(0, 0.1), "beach"), ("sea-3", vector(0, 0.15), nil),
            ("meal-1", vector(20, 0.05), "food"), ("meal-2", vector(20, 0.1), "food"), ("meal-3", vector(20, 0.12), "mountains"),
            ("dog", vector(40, 0), "dogs"), ("nothing", vector(50, 0), nil),
        ]
        for (index, (name, embedding, theme)) in photos.enumerated() {
            var photo = IndexedPhoto(
                id: name, path: library.folder + "/\(name).jpg", size: 1, modified: Date(), imageHash: name, kind: .jpeg,
                takenAt: Date(timeIntervalSince1970: Double(1_600_000_000 + index * 86_400)), utcOffset: 0, dateTrusted: true,
                latitude: nil, longitude: nil, place: nil, width: 4000, height: 3000, orientation: 1, keywords: [], people: [], faces: [],
                quality: 0.8, perceptualHash: UInt64(index) &* 0x9E37_79B9_7F4A_7C15, rating: nil, favorite: false, embedding: embedding, error: nil)
            photo.sceneTheme = theme
            try library.database.write { db in try PhotoIndexDatabase.save(photo, at: Date(), in: db) }
        }
        let summary = try ThemeClustering(database: library.database).run()
        #expect(summary.clusters == 2 && summary.namedClusters == 2, "\(summary)")
        #expect(summary.themes == [CountedValue(value: "beach", count: 3), CountedValue(value: "food", count: 3), CountedValue(value: "dogs", count: 1)],
                "the unnamed sea photo joins the beach, the meal taken for mountains joins the food, the dog alone keeps its own: \(summary.themes)")
        #expect(try PersonCache(database: library.database).themes == summary.themes)
        let selection = try CollageJob(database: library.database, request: CollageRequest(source: .theme("Beach"), count: 3))
            .check(writingTo: library.root + "/beach.jpg").selection
        #expect(Set(selection.photos.map(\.path)) == Set(["sea-1", "sea-2", "sea-3"].map { library.folder + "/\($0).jpg" }))
        do {
            _ = try CollageJob(database: library.database, request: CollageRequest(source: .theme("volcanoes"))).check(writingTo: library.root + "/x.jpg")
            Issue.record("an unknown theme gave a collage")
        } catch {
            #expect(error.message.contains("volcanoes"), "\(error.message)")
        }
        // Run again: the same themes (the table is replaced, not added to).
        #expect(try ThemeClustering(database: library.database).run().themes == summary.themes)
    }

    @Test("the theme vocabulary: ImageNet classes to theme words, a theme named by the most probability")
    func vocabulary() {
        #expect(SceneThemes.theme(ofClass: 978) == "beach" && SceneThemes.theme(ofClass: 207) == "dogs" && SceneThemes.theme(ofClass: 963) == "food")
        #expect(SceneThemes.theme(ofClass: 1) == nil)
        #expect(SceneThemes.theme(of: [(978, 0.3), (970, 0.25), (979, 0.2)]) == "mountains", "alp and valley outweigh seashore")
        #expect(SceneThemes.theme(of: [(978, 0.1), (1, 0.9)]) == nil, "too little of the photo is a theme")
    }
}
