import Foundation
import TestSupport
import GRDB
import ImageKit
import MemoraSystem
import Testing
@testable import PhotoIndex

/// Index rows written directly, for the selection rules.
struct Rows {
    let root: String
    let database: PhotoIndexDatabase

    init() throws {
        root = try temporaryFolder("collage")
        database = try PhotoIndexDatabase(path: root + "/index.sqlite")
    }

    /// The index at `path` (created or migrated), photos under `root`.
    init(path: String, root: String) throws {
        self.root = root
        database = try PhotoIndexDatabase(path: path)
    }

    func add(_ name: String, taken: String, quality: Double, hash: UInt64, place: String? = nil, position: (Double, Double)? = nil,
             people: [String] = [], faces: [FaceBox] = [], path: String? = nil, orientation: Int = 1, error: String? = nil) throws {
        let photo = IndexedPhoto(
            id: name, path: path ?? root + "/" + name + ".jpg", size: 1, modified: Date(), imageHash: name, kind: .jpeg,
            takenAt: ISO8601DateFormatter().date(from: taken), utcOffset: 0, dateTrusted: true, latitude: position?.0, longitude: position?.1,
            place: place, width: 4000, height: 3000, orientation: orientation, keywords: [], people: people, faces: faces, quality: quality,
            perceptualHash: hash, rating: nil, favorite: false,
            embedding: nil, error: error)
        try database.pool.write { db in try PhotoIndexDatabase.save(photo, at: Date(), in: db) }
    }

    func select(_ request: CollageRequest) throws -> CollageSelection {
        try CollageSelector(database: database).select(request)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

/// Distinct perceptual hashes: far apart in Hamming distance.
func distinctHash(_ index: Int) -> UInt64 {
    var random = SeededRandom(seed: UInt64(index) &* 7919 &+ 1)
    return random.next()
}

@Suite("Collage selection")
struct SelectionTests {
    @Test("spread across the year, one photo per period, oldest first, with backups")
    func dateSpread() throws {
        let rows = try Rows()
        defer { rows.remove() }
        // Every month: its own orientation and, in odd months, two faces (named and not).
        func faces(_ month: Int) -> [FaceBox] {
            month % 2 == 1 ? [FaceBox(name: "Ana", x: 0.1, y: 0.2, width: 0.3, height: 0.3), FaceBox(name: nil, x: 0.5, y: 0.1, width: 0.2, height: 0.2 + Double(month) / 100)] : []
        }
        for month in 1...12 {
            try rows.add("m\(month)", taken: String(format: "2019-%02d-15T12:00:00Z", month), quality: 0.6 + Double(month % 3) * 0.1, hash: distinctHash(month),
                         people: month % 2 == 1 ? ["Ana"] : [], faces: faces(month), orientation: month % 8 + 1)
        }
        try rows.add("other-year", taken: "2020-03-01T00:00:00Z", quality: 0.99, hash: distinctHash(99))
        let selection = try rows.select(CollageRequest(source: .year(2019), count: 6, seed: 1))
        #expect(selection.photos.count == 6 && selection.extras.count == 4)
        let months = selection.photos.map { Calendar(identifier: .gregorian).component(.month, from: $0.takenAt!) }
        #expect(months == months.sorted())
        // Six periods of two months each: one photo from each.
        #expect(Set(months.map { ($0 - 1) / 2 }).count == 6, "\(months)")
        #expect(!selection.photos.contains { $0.id == "other-year" })
        #expect(selection.photos.allSatisfy { $0.reason.contains("period") })
        #expect(selection.rejected.count == 2)
        // Paths, orientations and faces (in their order) are those stored, for photos, backups and rejections.
        for photo in selection.photos + selection.extras {
            let month = Int(photo.id.dropFirst())!
            #expect(photo.path == rows.root + "/\(photo.id).jpg" && photo.orientation == month % 8 + 1 && photo.faces == faces(month), "\(photo.id)")
        }
        #expect(selection.rejected.allSatisfy { $0.path.hasPrefix(rows.root + "/m") && $0.path.hasSuffix(".jpg") })
    }

    @Test("the same seed gives the same photos; the next seed shuffles")
    func determinism() throws {
        let rows = try Rows()
        defer { rows.remove() }
        for index in 0..<30 { try rows.add("p\(index)", taken: "2018-06-01T12:00:00Z", quality: 0.7, hash: distinctHash(index)) }
        let first = try rows.select(CollageRequest(source: .year(2018), seed: 42)).photos.map(\.id)
        let again = try rows.select(CollageRequest(source: .year(2018), seed: 42)).photos.map(\.id)
        let next = try rows.select(CollageRequest(source: .year(2018), seed: 43)).photos.map(\.id)
        #expect(first == again && first.count == 6)
        #expect(first != next)
    }

    @Test("quality above 0.5, relaxed and said so when too few pass")
    func qualityThreshold() throws {
        let rows = try Rows()
        defer { rows.remove() }
        for (index, quality) in [0.9, 0.8, 0.45, 0.35, 0.2, 0.1, 0.05].enumerated() {
            try rows.add("q\(index)", taken: "2017-0\(index + 1)-01T00:00:00Z", quality: quality, hash: distinctHash(index))
        }
        let strict = try rows.select(CollageRequest(source: .year(2017), count: 2))
        #expect(strict.qualityThreshold == 0.5 && Set(strict.photos.map(\.id)) == ["q0", "q1"] && strict.notes.isEmpty)
        let relaxed = try rows.select(CollageRequest(source: .year(2017), count: 4))
        #expect(relaxed.qualityThreshold == 0.3 && relaxed.photos.count == 4)
        #expect(relaxed.notes.contains { $0.contains("relaxed to 0.3") })
        #expect(relaxed.rejected.contains { $0.reason.contains("quality 0.20") })
        let tooFew = try rows.select(CollageRequest(source: .year(2017), count: 10))
        #expect(tooFew.photos.count == 7 && tooFew.notes.contains { $0.contains("only 7") })
    }

    @Test("a person's face must cover more than 15% of the photo")
    func personFaceShare() throws {
        let rows = try Rows()
        defer { rows.remove() }
        try rows.add("big", taken: "2016-01-01T00:00:00Z", quality: 0.8, hash: distinctHash(1), people: ["Ana"],
                     faces: [FaceBox(name: "Ana", x: 0.3, y: 0.2, width: 0.4, height: 0.5)])
        try rows.add("small", taken: "2016-02-01T00:00:00Z", quality: 0.9, hash: distinctHash(2), people: ["Ana"],
                     faces: [FaceBox(name: "Ana", x: 0.3, y: 0.2, width: 0.1, height: 0.1)])
        try rows.add("named", taken: "2016-03-01T00:00:00Z", quality: 0.9, hash: distinctHash(3), people: ["Ana"])
        try rows.add("someone", taken: "2016-04-01T00:00:00Z", quality: 0.9, hash: distinctHash(4), people: ["Ben"],
                     faces: [FaceBox(name: "Ben", x: 0, y: 0, width: 0.9, height: 0.9)])
        let selection = try rows.select(CollageRequest(source: .person("ana")))
        #expect(selection.photos.map(\.id) == ["big"])
        #expect(selection.rejected.contains { $0.path.hasSuffix("small.jpg") && $0.reason.contains("covers 1%") })
        #expect(selection.rejected.contains { $0.path.hasSuffix("named.jpg") && $0.reason.contains("no face box") })
        #expect(try rows.select(CollageRequest(source: .person("Nobody"))).photos.isEmpty)
    }

    @Test("no two near-duplicates in one collage")
    func nearDuplicates() throws {
        let rows = try Rows()
        defer { rows.remove() }
        let base: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        try rows.add("original", taken: "2015-01-01T00:00:00Z", quality: 0.9, hash: base)
        try rows.add("burst", taken: "2015-01-01T00:00:01Z", quality: 0.85, hash: base ^ 0b1011)  // 3 bits apart
        try rows.add("different", taken: "2015-06-01T00:00:00Z", quality: 0.6, hash: ~base)
        for seed in UInt64(0)..<8 {
            let selection = try rows.select(CollageRequest(source: .year(2015), count: 3, seed: seed))
            let ids = Set(selection.photos.map(\.id))
            // One of the pair (the seeded jitter may prefer either), never both.
            #expect(ids.count == 2 && ids.contains("different") && ids.intersection(["original", "burst"]).count == 1)
            let left = ids.contains("original") ? "burst.jpg" : "original.jpg"
            let kept = ids.contains("original") ? "original.jpg" : "burst.jpg"
            #expect(selection.rejected.contains { $0.path.hasSuffix(left) && $0.reason == "a near-duplicate of \(rows.root)/\(kept)" })
        }
    }

    @Test("an index made before v2 is upgraded: a year's candidates come from the covering index alone")
    func yearCoveringIndex() throws {
        let root = try temporaryFolder("collage-v1")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/index.sqlite"
        do {
            let old = try DatabaseQueue(path: path)
            try PhotoIndexDatabase.migrator.migrate(old, upTo: "v1")
            #expect(try old.read { db in try db.indexes(on: "photos").map(\.name) }.contains("idx_photos_year"))
        }
        let rows = try Rows(path: path, root: root)
        try rows.add("a", taken: "2021-05-01T00:00:00Z", quality: 0.9, hash: distinctHash(1))
        #expect(try rows.select(CollageRequest(source: .year(2021))).photos.map(\.id) == ["a"])
        let (indexes, plan) = try rows.database.pool.read { db in
            (try db.indexes(on: "photos").map(\.name),
             try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT p.id, p.taken_at, p.quality, p.phash FROM photos p WHERE p.error IS NULL AND p.year = ?",
                              arguments: [2021]).map { $0["detail"] as String })
        }
        #expect(indexes.contains("idx_photos_year_candidates") && !indexes.contains("idx_photos_year"))
        #expect(plan.contains { $0.contains("COVERING INDEX idx_photos_year_candidates") }, "\(plan)")
    }

    @Test("places by name or by distance, and the date-range presets")
    func placesAndRanges() throws {
        let rows = try Rows()
        defer { rows.remove() }
        try rows.add("lyon", taken: "2026-03-01T00:00:00Z", quality: 0.8, hash: distinctHash(1), place: "Lyon, France", position: (45.76, 4.84))
        try rows.add("villeurbanne", taken: "2022-03-01T00:00:00Z", quality: 0.8, hash: distinctHash(2), place: "Villeurbanne, France", position: (45.77, 4.88))
        try rows.add("paris", taken: "2010-03-01T00:00:00Z", quality: 0.8, hash: distinctHash(3), place: "Paris, France", position: (48.86, 2.35))
        #expect(try rows.select(CollageRequest(source: .place("lyon"))).photos.map(\.id) == ["lyon"])
        #expect(try rows.select(CollageRequest(source: .place("France"))).photos.count == 3)
        let near = try rows.select(CollageRequest(source: .area(latitude: 45.76, longitude: 4.84, radiusKilometres: 10)))
        #expect(Set(near.photos.map(\.id)) == ["lyon", "villeurbanne"])
        let now = ISO8601DateFormatter().date(from: "2026-11-22T00:00:00Z")!
        #expect(try rows.select(CollageRequest(source: .place("France"), range: .lastYear, now: now)).photos.map(\.id) == ["lyon"])
        #expect(try rows.select(CollageRequest(source: .place("France"), range: .lastFiveYears, now: now)).photos.count == 2)
        #expect(throws: PhotoIndexError.self) { try rows.select(CollageRequest(source: .everything, count: 11)) }
    }
}

@Suite("Face-aware crop and rendering")
struct CropAndRenderTests {
    @Test("the crop has the cell's aspect exactly, holds every face with its margin, and stays inside the photo")
    func cropGeometry() {
        let faces = [FaceBox(name: nil, x: 0.70, y: 0.10, width: 0.1, height: 0.15), FaceBox(name: nil, x: 0.85, y: 0.2, width: 0.1, height: 0.12)]
        let crop = FaceAwareCrop.crop(width: 4000, height: 3000, uprightFaces: faces, aspectRatio: 597.0 / 496.0)
        #expect(abs(Double(crop.width) / Double(crop.height) - 597.0 / 496.0) < 0.002)
        #expect(crop.x >= 0 && crop.y >= 0 && crop.x + crop.width <= 4000 && crop.y + crop.height <= 3000)
        for face in faces {
            #expect(Double(crop.x) <= face.x * 4000 && face.x * 4000 + face.width * 4000 <= Double(crop.x + crop.width))
            #expect(Double(crop.y) <= face.y * 3000 && face.y * 3000 + face.height * 3000 <= Double(crop.y + crop.height))
        }
        #expect(crop.x > 2000 - crop.width / 2, "moved toward the faces on the right")
        let centred = FaceAwareCrop.crop(width: 4000, height: 3000, uprightFaces: [], aspectRatio: 1)
        #expect(centred == PixelRect(x: 500, y: 0, width: 3000, height: 3000))
        // Orientation 6 (rotate 90° clockwise): a face at the stored top-left ends up at the top-right.
        let turned = FaceAwareCrop.upright(FaceBox(name: nil, x: 0.1, y: 0.1, width: 0.2, height: 0.3), orientation: 6)
        #expect(abs(turned.x - 0.6) < 1e-12 && abs(turned.y - 0.1) < 1e-12 && turned.width == 0.3 && turned.height == 0.2)
    }

    @Test("six solid-colour photos land in their cells, oldest first; an unreadable one gives its cell to a backup")
    func renderCells() async throws {
        let rows = try Rows()
        defer { rows.remove() }
        let colours: [RGBAColor] = [
            RGBAColor(red: 220, green: 30, blue: 30), RGBAColor(red: 30, green: 200, blue: 30), RGBAColor(red: 30, green: 30, blue: 220),
            RGBAColor(red: 230, green: 220, blue: 30), RGBAColor(red: 200, green: 30, blue: 200), RGBAColor(red: 30, green: 200, blue: 210),
            RGBAColor(red: 120, green: 60, blue: 20),
        ]
        for (index, colour) in colours.enumerated() {
            let path = rows.root + "/c\(index).jpg"
            try ImageEncoder.write(try Image(width: 800, height: 600, fill: colour), to: path, as: .jpeg(JPEGEncodingOptions(quality: 0.95)))
            try rows.add("c\(index)", taken: "2014-0\(index + 1)-01T00:00:00Z", quality: index == 6 ? 0.55 : 0.9, hash: distinctHash(index), path: path)
        }
        try FileManager.default.removeItem(atPath: rows.root + "/c2.jpg")  // indexed, then lost
        let selection = try rows.select(CollageRequest(source: .year(2014), count: 6, extraCandidates: 1))
        #expect(selection.extras.map(\.id) == ["c6"])
        let collage = try await CollageRenderer.render(selection, layout: .grid2x3)
        #expect(collage.image.width == 1200 && collage.image.height == 1500)
        #expect(collage.failed.count == 1 && collage.failed[0].path.hasSuffix("c2.jpg"))
        #expect(collage.failed.first?.reason == "no such file", "the reason does not repeat the path")
        let decoded = try ImageDecoder.decode(collage.jpeg)
        #expect(decoded.width == 1200 && decoded.height == 1500)
        let expected = [0, 1, 6, 3, 4, 5]
        for (slot, cell) in collage.cells.enumerated() {
            let pixel = decoded.pixel(x: cell.cell.x + cell.cell.width / 2, y: cell.cell.y + cell.cell.height / 2)
            let colour = colours[expected[slot]]
            #expect(abs(Int(pixel.red) - Int(colour.red)) < 12 && abs(Int(pixel.green) - Int(colour.green)) < 12 && abs(Int(pixel.blue) - Int(colour.blue)) < 12,
                    "cell \(slot): \(pixel) instead of \(colour)")
        }
        // The grid's 6:5 cells with the minimal spacing; the gap between cells stays background.
        #expect(collage.cells[0].cell.width == 597 && collage.cells[0].cell.height == 496)
        #expect(collage.image.pixel(x: 599, y: 100) == RGBAColor.white)
    }

    @Test("a chosen photo that cannot be decoded gives its cell to its near-duplicate twin before any backup, and is reported")
    func twinStandsIn() async throws {
        let rows = try Rows()
        defer { rows.remove() }
        let red = RGBAColor(red: 220, green: 30, blue: 30), green = RGBAColor(red: 30, green: 200, blue: 30), blue = RGBAColor(red: 30, green: 30, blue: 220)
        for (name, colour, month, quality, hash) in [("a", red, 1, 0.95, distinctHash(0)), ("a-twin", red, 1, 0.9, distinctHash(0)),
                                                     ("b", green, 6, 0.9, distinctHash(1)), ("backup", blue, 7, 0.6, distinctHash(2))] {
            let path = rows.root + "/" + name + ".jpg"
            try ImageEncoder.write(try Image(width: 800, height: 600, fill: colour), to: path, as: .jpeg(JPEGEncodingOptions(quality: 0.95)))
            try rows.add(name, taken: "2015-0\(month)-01T00:00:00Z", quality: quality, hash: hash, path: path)
        }
        let selection = try rows.select(CollageRequest(source: .year(2015), count: 2, extraCandidates: 1))
        #expect(selection.photos.map(\.id) == ["a", "b"])
        #expect(selection.twins["a"]?.map(\.id) == ["a-twin"] && selection.extras.map(\.id) == ["backup"])
        // Foreign bytes spliced into the chosen photo's image data: indexed, but no longer decodable.
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: rows.root + "/a.jpg")))
        for index in 700..<bytes.count - 2 { bytes[index] = UInt8(truncatingIfNeeded: index &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: rows.root + "/a.jpg"))
        let collage = try await CollageRenderer.render(selection, layout: .dynamic)
        #expect(collage.cells.map(\.path) == [rows.root + "/a-twin.jpg", rows.root + "/b.jpg"], "the twin, not the backup")
        #expect(collage.failed.map(\.path) == [rows.root + "/a.jpg"] && !(collage.failed.first?.reason.isEmpty ?? true))
    }

    @Test("the same seed renders the same bytes")
    func sameBytes() async throws {
        let rows = try Rows()
        defer { rows.remove() }
        for index in 0..<8 {
            let path = rows.root + "/s\(index).jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 900, height: 600, seed: UInt64(index + 1)), to: path, as: .jpeg())
            try rows.add("s\(index)", taken: "2013-0\(index + 1)-01T00:00:00Z", quality: 0.8, hash: distinctHash(index),
                         faces: index == 2 ? [FaceBox(name: nil, x: 0.7, y: 0.1, width: 0.2, height: 0.3)] : [], path: path)
        }
        let request = CollageRequest(source: .year(2013), count: 5, seed: 11)
        let first = try await CollageRenderer.render(try rows.select(request), layout: .dynamic, scale: 1)
        let second = try await CollageRenderer.render(try rows.select(request), layout: .dynamic, scale: 1)
        #expect(first.jpeg == second.jpeg)
        #expect(first.image.width == 1200 && first.image.height == 1200 && first.cells.count == 5)
    }

    @Test("the collage job writes what the renderer draws; an empty selection or an overfull grid is refused and writes nothing")
    func collageJob() async throws {
        let rows = try Rows()
        defer { rows.remove() }
        for index in 0..<4 {
            let path = rows.root + "/j\(index).jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 600, height: 400, seed: UInt64(index + 1)), to: path, as: .jpeg())
            try rows.add("j\(index)", taken: "2012-0\(index + 1)-01T00:00:00Z", quality: 0.8, hash: distinctHash(index), path: path)
        }
        let out = rows.root + "/collage.jpg"
        let request = CollageRequest(source: .year(2012), count: 4, seed: 3)
        let result = try await CollageJob(database: rows.database, request: request, layout: .dynamic).run(writingTo: out)
        #expect(result.selection.photos.count == 4)
        let written = try Array(Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(written == result.collage.jpeg)
        #expect(written == (try await CollageRenderer.render(try rows.select(request), layout: .dynamic)).jpeg, "the job draws what the renderer draws")

        let nothing = rows.root + "/none.jpg"
        let empty = await #expect(throws: PhotoIndexError.self) {
            try await CollageJob(database: rows.database, request: CollageRequest(source: .year(1999), count: 4)).run(writingTo: nothing)
        }
        #expect(empty?.code == .invalidRequest && empty?.message.contains("memora index stats") == true)
        let overfull = await #expect(throws: PhotoIndexError.self) {
            try await CollageJob(database: rows.database, request: CollageRequest(source: .year(2012), count: 8), layout: .grid2x3).run(writingTo: nothing)
        }
        #expect(overfull?.message.contains("grid2x3") == true)
        #expect(!FileManager.default.fileExists(atPath: nothing))
    }

    @Test("the dynamic layout: square, 2 columns up to 4 photos, 3 from 5 (the first row of five), at 2x")
    func dynamicLayout() throws {
        #expect(CollageLayout.dynamic.canvasSize(scale: 2) == (2400, 2400))
        let four = try CollageLayout.dynamic.cells(count: 4, scale: 1)
        let five = try CollageLayout.dynamic.cells(count: 5, scale: 1)
        #expect(Set(four.map(\.x)).count == 2 && Set(five.prefix(3).map(\.x)).count == 3 && Set(five.prefix(3).map(\.y)).count == 1)
        #expect(four[1].x - (four[0].x + four[0].width) == 6)
        #expect(CollageLayout.dynamic.cornerRadius(scale: 2) == 16)
    }
}
