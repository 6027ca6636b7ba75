import Foundation
import ImageKit
import Testing
@testable import PhotoIndex
import TestSupport

/// A sidecar XMP packet with a date, a place, people and MWG face regions.
func sidecarXMP(date: String?, city: String?, country: String?, people: [String], faces: [(String, Double, Double, Double, Double)], rating: Int? = nil) -> String {
    var attributes = ""
    if let date { attributes += " exif:DateTimeOriginal=\"\(date)\"" }
    if let city { attributes += " photoshop:City=\"\(city)\"" }
    if let country { attributes += " photoshop:Country=\"\(country)\"" }
    if let rating { attributes += " xmp:Rating=\"\(rating)\"" }
    let persons = people.isEmpty ? "" : "<Iptc4xmpExt:PersonInImage><rdf:Bag>" + people.map { "<rdf:li>\($0)</rdf:li>" }.joined() + "</rdf:Bag></Iptc4xmpExt:PersonInImage>"
    // MWG areas are given by their centre.
    let regions = faces.isEmpty ? "" : "<mwg-rs:Regions rdf:parseType=\"Resource\"><mwg-rs:RegionList><rdf:Bag>" + faces.map { face in
        "<rdf:li rdf:parseType=\"Resource\"><mwg-rs:Name>\(face.0)</mwg-rs:Name><mwg-rs:Type>Face</mwg-rs:Type>"
            + "<mwg-rs:Area stArea:x=\"\(face.1 + face.3 / 2)\" stArea:y=\"\(face.2 + face.4 / 2)\" stArea:w=\"\(face.3)\" stArea:h=\"\(face.4)\" stArea:unit=\"normalized\"/></rdf:li>"
    }.joined() + "</rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions>"
    return """
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
         xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
         xmlns:mwg-rs="http://www.metadataworkinggroup.com/schemas/regions/" xmlns:stArea="http://ns.adobe.com/xmp/sType/Area#"\(attributes)>
        \(persons)\(regions)
        </rdf:Description></rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """
}

/// A generated library: real JPEG and PNG files from the real encoders, metadata in XMP sidecars.
struct Library {
    let root: String
    let database: PhotoIndexDatabase

    init() throws {
        root = try temporaryFolder("photoindex")
        try FileManager.default.createDirectory(atPath: root + "/library", withIntermediateDirectories: true)
        database = try PhotoIndexDatabase(path: root + "/index.sqlite")
    }

    var folder: String { root + "/library" }

    @discardableResult
    func photo(_ name: String, seed: UInt64, png: Bool = false, xmp: String? = nil, format: EncodingFormat? = nil) throws -> String {
        let path = folder + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let image = try SyntheticPhoto.landscape(width: 480, height: 360, seed: seed)
        try ImageEncoder.write(image, to: path, as: format ?? (png ? .png() : .jpeg()))
        if let xmp { try Data(xmp.utf8).write(to: URL(fileURLWithPath: path + ".xmp")) }
        return path
    }

    func index() async throws -> PhotoIndexer.Summary {
        try await PhotoIndexer(database: database).index(DirectoryPhotoLibrary(root: folder))
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

@Suite("Photo index")
struct IndexTests {
    @Test("indexes dates, places, people, faces, quality and hashes; sidecars and hidden files are not photos; content decides the format")
    func fullIndex() async throws {
        let library = try Library()
        defer { library.remove() }
        let lyon = try library.photo("2019/lyon.jpg", seed: 1, xmp: sidecarXMP(
            date: "2019-07-14T16:05:09+02:00", city: "Lyon", country: "France", people: ["Ana"],
            faces: [("Ana", 0.3, 0.2, 0.25, 0.4), ("Ben", 0.6, 0.3, 0.1, 0.15)], rating: 5))
        try library.photo("2021/beach.png", seed: 2, png: true, xmp: sidecarXMP(date: "2021-08-01T10:00:00Z", city: nil, country: nil, people: [], faces: []))
        try library.photo("misnamed.png", seed: 3)  // a JPEG whatever its name says
        let webp = try library.photo("2020/phone.webp", seed: 6, xmp: sidecarXMP(date: "2020-02-02T08:00:00Z", city: "Oslo", country: "Norway", people: [], faces: []),
                                     format: .webp())
        try library.photo(".hidden/secret.jpg", seed: 4)
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: library.folder + "/notes.jpg"))
        let corrupt = try ImageEncoder.encode(try SyntheticPhoto.landscape(width: 300, height: 200, seed: 5), as: .jpeg())
        try Data(corrupt.prefix(corrupt.count / 3)).write(to: URL(fileURLWithPath: library.folder + "/cut.jpg"))

        let summary = try await library.index()
        #expect(summary.total == 5 && summary.indexed == 5 && summary.failed == 1)
        let photo = try #require(try library.database.photo(atPath: lyon))
        #expect(photo.dateTrusted && photo.utcOffset == 7200)
        #expect(photo.takenAt == ISO8601DateFormatter().date(from: "2019-07-14T14:05:09Z"))
        #expect(photo.place == "Lyon, France")
        #expect(Set(photo.people) == ["Ana", "Ben"])
        #expect(photo.faces.count == 2 && abs(photo.faces[0].x - 0.3) < 1e-9 && abs(photo.faces[0].width - 0.25) < 1e-9)
        #expect(photo.favorite && photo.rating == 5)
        #expect(photo.width == 480 && photo.height == 360 && photo.kind == .jpeg)
        #expect(photo.imageHash.count == 64)
        #expect(photo.imageHash == PhotoAnalyzer.sha256([UInt8](try Data(contentsOf: URL(fileURLWithPath: lyon)))))
        #expect((0...1).contains(photo.quality ?? -1) && photo.perceptualHash != nil)
        #expect(try library.database.photo(atPath: library.folder + "/misnamed.png")?.kind == .jpeg)
        for head: [UInt8] in [[0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B]] {
            #expect(PhotoFileKind.detect(head + [UInt8](repeating: 0, count: 28)) == .tiff)  // TIFF and BigTIFF, both byte orders
        }
        // A WebP is a photo like the others: decoded for its quality and hash, sized, dated by its sidecar.
        let phone = try #require(try library.database.photo(atPath: webp))
        #expect(phone.error == nil && phone.kind == .webp && phone.width == 480 && phone.height == 360 && phone.place == "Oslo, Norway")
        #expect((0...1).contains(phone.quality ?? -1) && phone.perceptualHash != nil)
        let cut = try #require(try library.database.photo(atPath: library.folder + "/cut.jpg"))
        #expect(cut.error != nil && !cut.dateTrusted)

        let cache = try PersonCache(database: library.database, minimumPhotosPerPerson: 1)
        #expect(cache.years.contains(CountedValue(value: "2019", count: 1)) && cache.years.contains(CountedValue(value: "2021", count: 1)))
        #expect(Set(cache.places) == [CountedValue(value: "Lyon, France", count: 1), CountedValue(value: "Oslo, Norway", count: 1)])
        #expect(Set(cache.people.map(\.value)) == ["Ana", "Ben"])
        #expect(try PersonCache(database: library.database).people.isEmpty, "the seed's minimum of 10 photos")
        #expect(cache.unreadable == 1 && cache.untrustedDates == 1)
    }

    @Test("re-indexing finds nothing new, then picks up adds, edits, renames and deletions")
    func incremental() async throws {
        let library = try Library()
        defer { library.remove() }
        let a = try library.photo("a.jpg", seed: 1)
        let b = try library.photo("b.jpg", seed: 2)
        let c = try library.photo("c.jpg", seed: 3)
        _ = try await library.index()
        let idA = try #require(try library.database.photo(atPath: a)?.id)
        let idB = try #require(try library.database.photo(atPath: b)?.id)
        let again = try await library.index()
        #expect(again.unchanged == 3 && again.indexed == 0)

        try library.photo("a.jpg", seed: 10)  // edited: new content, same path
        try FileManager.default.moveItem(atPath: b, toPath: library.folder + "/renamed-b.jpg")
        try FileManager.default.removeItem(atPath: c)
        try library.photo("d.jpg", seed: 4)
        // Touched without a change of content: only its stamp moves.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: library.photo("e.jpg", seed: 5))
        let summary = try await library.index()
        #expect(summary.indexed == 3 && summary.renamed == 1 && summary.removed == 1, "\(summary)")
        #expect(try library.database.photo(atPath: a)?.id == idA)
        #expect(try library.database.photo(atPath: library.folder + "/renamed-b.jpg")?.id == idB)
        #expect(try library.database.photo(atPath: c) == nil)
        #expect(try library.database.allPhotos().count == 4)
    }

    @Test("a photo whose XMP sidecar changed (or appeared, or went) is read again, keeping its id; an untouched one is not")
    func sidecarChanges() async throws {
        let library = try Library()
        defer { library.remove() }
        let tagged = try library.photo("tagged.jpg", seed: 1, xmp: sidecarXMP(date: "2019-05-01T10:00:00", city: "Lyon", country: "France", people: ["Ana"], faces: []))
        let bare = try library.photo("bare.jpg", seed: 2)
        let other = try library.photo("other.jpg", seed: 3, xmp: sidecarXMP(date: "2018-01-01T10:00:00", city: nil, country: nil, people: [], faces: []))
        _ = try await library.index()
        let id = try #require(try library.database.photo(atPath: tagged)?.id)
        #expect(try library.database.photo(atPath: tagged)?.people == ["Ana"])

        // A photo manager tags Ben instead (a new sidecar, a later time); another photo gets a sidecar; one loses its own.
        let later = Date().addingTimeInterval(60)
        try Data(sidecarXMP(date: "2019-05-01T10:00:00", city: "Lyon", country: "France", people: ["Ben"], faces: []).utf8)
            .write(to: URL(fileURLWithPath: tagged + ".xmp"))
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: tagged + ".xmp")
        try Data(sidecarXMP(date: nil, city: "Porto", country: "Portugal", people: [], faces: []).utf8).write(to: URL(fileURLWithPath: bare + ".xmp"))
        try FileManager.default.removeItem(atPath: other + ".xmp")
        let plan = try PhotoIndexer(database: library.database).check(DirectoryPhotoLibrary(root: library.folder))
        #expect(plan.indexed == 3 && plan.unchanged == 0, "the dry run sees the same: \(plan)")
        let summary = try await library.index()
        #expect(summary.indexed == 3 && summary.unchanged == 0, "\(summary)")
        #expect(try library.database.photo(atPath: tagged)?.people == ["Ben"])
        #expect(try library.database.photo(atPath: tagged)?.id == id)
        #expect(try library.database.photo(atPath: bare)?.place?.contains("Porto") == true)
        #expect(try library.database.photo(atPath: other)?.dateTrusted == false, "its date came from the sidecar that went")
        let again = try await library.index()
        #expect(again.unchanged == 3 && again.indexed == 0, "\(again)")
    }

    @Test("an interrupted run keeps what it finished, and the next run does the rest")
    func resume() async throws {
        let library = try Library()
        defer { library.remove() }
        for index in 0..<24 { try library.photo("p\(index).jpg", seed: UInt64(index + 1)) }
        let database = library.database
        let folder = library.folder
        let task = Task {
            try await PhotoIndexer(database: database, concurrency: 2).index(DirectoryPhotoLibrary(root: folder)) { done, _, _ in
                if done == 9 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        let first = try await task.value
        #expect(first.indexed < 24)
        let saved = try database.allPhotos().count
        #expect(saved >= 8 && saved <= first.indexed)
        let second = try await library.index()
        #expect(second.unchanged == saved && second.indexed == 24 - saved)
        #expect(try database.allPhotos().count == 24)
    }

    @Test("an empty library and a missing folder")
    func emptyAndMissing() async throws {
        let library = try Library()
        defer { library.remove() }
        let summary = try await library.index()
        #expect(summary.total == 0)
        #expect(try PersonCache(database: library.database).photos == 0)
        await #expect {
            try await PhotoIndexer(database: library.database).index(DirectoryPhotoLibrary(root: library.root + "/nowhere"))
        } throws: { error in
            guard let error = error as? PhotoIndexError else { return false }
            return error.code == .libraryUnavailable && error.path == library.root + "/nowhere" && !error.isRetryable
                && error.message.components(separatedBy: library.root).count == 2
        }
    }
}

@Suite("Index errors")
struct IndexErrorTests {
    @Test("a file that is not a database: SQLite's own message and code, the path once, not GRDB's description")
    func notADatabase() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/index.sqlite"
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try PhotoIndexDatabase(path: path)
            Issue.record("a text file opened as the index")
        } catch {
            #expect(error.code == .database && error.path == path && error.libraryCode == 26 && !error.isRetryable, "\(error)")
            #expect(error.message == "the photo index \(path) failed: file is not a database")
        }
    }
}

@Suite("Hashes and scores")
struct HashAndScoreTests {
    @Test("a re-encoded photo is a near-duplicate; a different photo is not")
    func perceptualHash() throws {
        let image = try SyntheticPhoto.landscape(width: 640, height: 480, seed: 7)
        let original = PerceptualHash.hash(try ImageDecoder.decode(try ImageEncoder.encode(image, as: .jpeg(JPEGEncodingOptions(quality: 0.95)))).resized(fittingLongSide: 256))
        let recompressed = PerceptualHash.hash(try ImageDecoder.decode(try ImageEncoder.encode(image.resized(fittingLongSide: 300), as: .jpeg(JPEGEncodingOptions(quality: 0.5)))).resized(fittingLongSide: 256))
        let other = PerceptualHash.hash(try SyntheticPhoto.landscape(width: 640, height: 480, seed: 99).resized(fittingLongSide: 256))
        #expect(PerceptualHash.distance(original, recompressed) <= PerceptualHash.nearDuplicateDistance)
        #expect(PerceptualHash.distance(original, other) > PerceptualHash.nearDuplicateDistance)
    }

    @Test("a detailed, well-exposed photo scores above a flat dark one")
    func quality() throws {
        let detailed = QualityScore(thumbnail: try SyntheticPhoto.landscape(width: 256, height: 192, seed: 3), pixelWidth: 4000, pixelHeight: 3000, faceCount: 1)
        let flat = QualityScore(thumbnail: try Image(width: 256, height: 192, fill: RGBAColor(red: 10, green: 10, blue: 12)), pixelWidth: 640, pixelHeight: 480, faceCount: 0)
        #expect(detailed.value > 0.5 && flat.value < 0.3, "\(detailed.value) vs \(flat.value)")
        #expect(flat.sharpness < 0.01 && flat.contrast < 0.01)
    }

    @Test("half floats round-trip within half precision, with the edge cases")
    func halfFloats() {
        let values: [Float] = [0, -0, 1, -2.5, 0.1, 65504, 1e-7, 70000, .infinity]
        let decoded = HalfFloat.decode(HalfFloat.encode(values))
        #expect(decoded[0] == 0 && decoded[2] == 1 && decoded[3] == -2.5 && decoded[5] == 65504)
        #expect(abs(decoded[4] - 0.1) < 0.0001)
        #expect(decoded[6] > 0 && decoded[6] < 2e-7)
        #expect(decoded[7] == .infinity && decoded[8] == .infinity)
        #expect(HalfFloat.decode(HalfFloat.encode([.nan]))[0].isNaN)
        #expect(HalfFloat.encode(Array(repeating: 0.5, count: 512)).count == 1024)
    }
}
